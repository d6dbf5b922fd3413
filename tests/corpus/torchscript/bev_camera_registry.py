# EXPECT: fails
"""Multi-camera BEV lifter that looks camera intrinsics up in a registry filled later at runtime."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.intrinsics = {}
        self.depth = nn.Conv2d(8, 4, 1)

    def forward(self, feats: torch.Tensor):
        d = self.depth(feats).softmax(1)
        scale = 1.0 if len(self.intrinsics) == 0 else 0.5
        return d * scale


def example_inputs():
    return [(torch.randn(2, 8, 4, 4),)]
