# EXPECT: fails
"""Occupancy grid head that returns occupied cell indices above a per-call threshold."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, bev, threshold):
        prob = self.head(bev).sigmoid()[:, 0]
        occupied = (prob > threshold).nonzero()
        return occupied


def example_inputs():
    return [(torch.randn(1, 4, 6, 6), 0.5)]
