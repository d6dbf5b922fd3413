# EXPECT: fails
"""Multi-head classifier whose heads were collected in a plain list."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, sizes=(3, 5, 7)):
        super().__init__()
        self.shared = nn.Linear(12, 24)
        self.heads = [nn.Linear(24, s) for s in sizes]

    def forward(self, x):
        h = self.shared(x).relu()
        return torch.cat([head(h) for head in self.heads], dim=-1)


def example_inputs():
    return [(torch.randn(2, 12),)]
