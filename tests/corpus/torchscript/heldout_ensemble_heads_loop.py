# EXPECT: fails
"""Ensemble of small heads averaged at inference, heads indexed by position."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, n: int = 3):
        super().__init__()
        self.n = n
        self.members = nn.ModuleList([nn.Linear(6, 2) for _ in range(n)])

    def forward(self, x: torch.Tensor):
        total = torch.zeros(x.shape[0], 2)
        for i in range(self.n):
            total = total + self.members[i](x)
        return total / self.n


def example_inputs():
    return [(torch.randn(4, 6),)]
