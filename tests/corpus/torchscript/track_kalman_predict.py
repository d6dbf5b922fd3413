# EXPECT: scripts
"""Constant-velocity Kalman filter predict step for a batch of tracks (SORT-style)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, dt: float = 1.0):
        super().__init__()
        F = torch.eye(8)
        for i in range(4):
            F[i, i + 4] = dt
        self.register_buffer("F", F)
        self.register_buffer("Q", torch.eye(8) * 0.01)

    def forward(self, mean: torch.Tensor, cov: torch.Tensor):
        mean = mean @ self.F.T
        cov = self.F @ cov @ self.F.T + self.Q
        return mean, cov


def example_inputs():
    return [(torch.randn(5, 8), torch.eye(8).expand(5, 8, 8).clone())]
