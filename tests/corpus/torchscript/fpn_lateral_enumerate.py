# EXPECT: scripts
"""FPN top-down pathway: lateral 1x1 convs and nearest upsampling, iterated with enumerate."""
from typing import List

import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), out_channels: int = 8):
        super().__init__()
        self.lateral = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])
        self.smooth = nn.Conv2d(out_channels, out_channels, 3, padding=1)

    def forward(self, feats: List[torch.Tensor]) -> List[torch.Tensor]:
        laterals: List[torch.Tensor] = []
        for i, conv in enumerate(self.lateral):
            laterals.append(conv(feats[i]))
        for i in range(len(laterals) - 1, 0, -1):
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], size=laterals[i - 1].shape[-2:], mode="nearest")
        return [self.smooth(p) for p in laterals]


def example_inputs():
    return [([torch.randn(1, 8, 16, 16), torch.randn(1, 16, 8, 8), torch.randn(1, 32, 4, 4)],)]
