"""Perception: a feature pyramid neck (top-down pathway with lateral connections)."""
from typing import List

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, channels=(8, 16, 32), out_ch=16):
        super().__init__()
        self.lateral = nn.ModuleList([nn.Conv2d(c, out_ch, 1) for c in channels])
        self.smooth = nn.ModuleList([nn.Conv2d(out_ch, out_ch, 3, padding=1) for _ in channels])

    def forward(self, c3, c4, c5):
        feats: List[torch.Tensor] = [c3, c4, c5]
        laterals = [l(f) for l, f in zip(self.lateral, feats)]
        for i in range(len(laterals) - 1, 0, -1):
            up = F.interpolate(laterals[i], size=laterals[i - 1].shape[-2:], mode="nearest")
            laterals[i - 1] = laterals[i - 1] + up
        return [s(l) for s, l in zip(self.smooth, laterals)]


def inputs():
    make = lambda: (torch.randn(1, 8, 32, 32), torch.randn(1, 16, 16, 16), torch.randn(1, 32, 8, 8))
    return [make(), make()]
