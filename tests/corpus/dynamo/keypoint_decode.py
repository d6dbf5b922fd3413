"""Pose: decode keypoints from heatmaps with soft-argmax (fully tensorised)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, beta=10.0):
        super().__init__()
        self.beta = beta

    def forward(self, heat):
        B, K, H, W = heat.shape
        prob = (heat.view(B, K, -1) * self.beta).softmax(-1).view(B, K, H, W)
        xs = torch.linspace(0, 1, W)
        ys = torch.linspace(0, 1, H)
        x = (prob.sum(2) * xs).sum(-1)
        y = (prob.sum(3) * ys).sum(-1)
        return torch.stack([x, y], -1)


def inputs():
    return [(torch.randn(2, 5, 8, 8),), (torch.randn(2, 5, 8, 8),)]
