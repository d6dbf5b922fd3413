"""Farthest point sampling written as a Python loop with .item() indices."""
# EXPECT: diverges
import torch
from torch import nn


class FarthestPointSampler(nn.Module):
    def __init__(self, n_samples=4):
        super().__init__()
        self.n_samples = n_samples

    def forward(self, xyz):
        dist = torch.full((xyz.shape[0],), 1e10)
        idx = [0]
        for _ in range(self.n_samples - 1):
            d = ((xyz - xyz[idx[-1]]) ** 2).sum(-1)
            dist = torch.minimum(dist, d)
            idx.append(int(dist.argmax().item()))
        return xyz[idx]


def make():
    torch.manual_seed(0)
    return FarthestPointSampler().eval(), [(torch.rand(16, 3),), (torch.rand(16, 3),)]
