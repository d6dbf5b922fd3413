# EXPECT: fails
"""Hierarchical set abstraction: one MLP per level, chosen by level index."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.levels = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)])
        self.ratios = [2, 2, 2]

    def forward(self, pts: torch.Tensor):
        for lvl in range(len(self.ratios)):
            pts = self.levels[lvl](pts)[:, :: self.ratios[lvl]]
        return pts


def example_inputs():
    return [(torch.randn(2, 16, 3),)]
