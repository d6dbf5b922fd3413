# EXPECT: fails
"""Lift-splat style module taking per-camera features as a list."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.depthnet = nn.Conv2d(8, 6, 1)

    def forward(self, cam_feats: List):
        outs = []
        for f in cam_feats:
            depth = self.depthnet(f).softmax(1)
            outs.append(depth.unsqueeze(2) * f.unsqueeze(1))
        return torch.stack(outs).sum(0)


def example_inputs():
    return [([torch.randn(1, 8, 4, 4), torch.randn(1, 8, 4, 4)],)]
