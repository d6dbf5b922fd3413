# EXPECT: fails
"""Per-level classification heads applied to an FPN feature list."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, channels: int = 16, num_levels: int = 3, num_classes: int = 5):
        super().__init__()
        self.cls_convs = nn.ModuleList(nn.Conv2d(channels, num_classes, 3, padding=1) for _ in range(num_levels))

    def forward(self, feats: List[torch.Tensor]):
        outs = []
        for conv, f in zip(self.cls_convs, feats):
            outs.append(conv(f).flatten(2))
        return torch.cat(outs, dim=-1)


def example_inputs():
    return [([torch.randn(1, 16, 16, 16), torch.randn(1, 16, 8, 8), torch.randn(1, 16, 4, 4)],)]
