# EXPECT: scripts
"""Detector head with a debug dump method excluded from scripting with @torch.jit.ignore."""
import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(8, 6, 1)
        self.debug = False

    @torch.jit.ignore
    def dump(self, x: torch.Tensor) -> None:
        arr = x.detach().numpy()
        stats = {}
        stats[0] = float(np.abs(arr).mean())
        print(stats)

    def forward(self, x: torch.Tensor):
        out = self.head(x)
        if self.debug:
            self.dump(out)
        return out


def example_inputs():
    return [(torch.randn(1, 8, 4, 4),)]
