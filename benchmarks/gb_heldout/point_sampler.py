"""Farthest-point sampling over a small point cloud."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, samples=3):
        super().__init__()
        self.samples = samples

    def forward(self, pts):
        n = pts.shape[0]
        chosen = [0]
        dist = torch.full((n,), float("inf"))
        for _ in range(self.samples - 1):
            dist = torch.minimum(dist, ((pts - pts[chosen[-1]]) ** 2).sum(-1))
            chosen.append(int(dist.argmax()))
        return pts[chosen]


def inputs():
    return [(torch.randn(8, 3),), (torch.randn(8, 3),)]
