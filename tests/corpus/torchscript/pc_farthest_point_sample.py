# EXPECT: scripts
"""Farthest point sampling in pure torch (PointNet++ set abstraction)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, npoint: int = 8):
        super().__init__()
        self.npoint = npoint

    def forward(self, xyz: torch.Tensor) -> torch.Tensor:
        B, N, _ = xyz.shape
        centroids = torch.zeros(B, self.npoint, dtype=torch.long)
        distance = torch.full((B, N), 1e10)
        farthest = torch.zeros(B, dtype=torch.long)
        batch = torch.arange(B)
        for i in range(self.npoint):
            centroids[:, i] = farthest
            centroid = xyz[batch, farthest].view(B, 1, 3)
            dist = ((xyz - centroid) ** 2).sum(-1)
            distance = torch.min(distance, dist)
            farthest = distance.argmax(-1)
        return centroids


def example_inputs():
    return [(torch.randn(2, 32, 3),)]
