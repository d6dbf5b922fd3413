# EXPECT: fails
"""BEV pooling with an optional learned depth rescale, declared as an Optional attribute."""
from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    depth_scale: Optional[torch.Tensor]

    def __init__(self, learn_scale: bool = True):
        super().__init__()
        self.proj = nn.Conv2d(8, 8, 1)
        self.depth_scale = nn.Parameter(torch.ones(1, 8, 1, 1)) if learn_scale else None

    def forward(self, x: torch.Tensor):
        y = self.proj(x)
        if self.depth_scale is not None:
            y = y * self.depth_scale
        return y.mean(dim=(2, 3))


def example_inputs():
    return [(torch.randn(2, 8, 4, 4),)]
