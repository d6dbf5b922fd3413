# EXPECT: fails
"""Anchor generator that memoises anchors per feature size in a dict on the module."""
from typing import Dict

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache: Dict[str, torch.Tensor] = {}
        self.stride = 8

    def forward(self, feat: torch.Tensor):
        key = str(feat.shape[-2]) + "x" + str(feat.shape[-1])
        if key not in self.cache:
            ys = torch.arange(feat.shape[-2]) * self.stride
            xs = torch.arange(feat.shape[-1]) * self.stride
            self.cache[key] = torch.stack(torch.meshgrid(ys, xs, indexing="ij"), -1)
        return self.cache[key]


def example_inputs():
    return [(torch.randn(1, 4, 3, 5),)]
