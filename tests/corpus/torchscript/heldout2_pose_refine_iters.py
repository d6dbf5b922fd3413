# EXPECT: fails
"""Iterative 6-DoF pose refinement with a shared update block applied a configurable number of times."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.update = nn.Sequential(nn.Linear(6 + 16, 32), nn.ReLU(), nn.Linear(32, 6))

    def forward(self, feat, pose, iters):
        for _ in range(iters):
            pose = pose + 0.1 * self.update(torch.cat([pose, feat], -1))
        return pose


def example_inputs():
    return [(torch.randn(2, 16), torch.zeros(2, 6), 3)]
