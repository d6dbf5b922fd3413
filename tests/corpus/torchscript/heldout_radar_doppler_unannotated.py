# EXPECT: fails
"""Radar point filter that drops static points given the ego speed supplied by the caller."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.margin = 0.3

    def forward(self, points: torch.Tensor, ego_speed, use_filter=True):
        radial = points[:, 3] + ego_speed * torch.cos(points[:, 2])
        if use_filter:
            return points[radial.abs() > self.margin]
        return points


def example_inputs():
    return [(torch.randn(20, 4), 1.5)]
