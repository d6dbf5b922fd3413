# EXPECT: fails
"""Box coder that clips deltas with numpy (ported from a numpy reference implementation)."""
import math

import numpy as np
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.clip = math.log(1000.0 / 16)

    def forward(self, anchors: torch.Tensor, deltas: torch.Tensor):
        dw = torch.from_numpy(np.clip(deltas[:, 2].numpy(), None, self.clip))
        dh = torch.from_numpy(np.clip(deltas[:, 3].numpy(), None, self.clip))
        w = anchors[:, 2] - anchors[:, 0]
        h = anchors[:, 3] - anchors[:, 1]
        return torch.stack([w * dw.exp(), h * dh.exp()], dim=-1)


def example_inputs():
    a = torch.rand(5, 2) * 10
    return [(torch.cat([a, a + 5], 1), torch.randn(5, 4))]
