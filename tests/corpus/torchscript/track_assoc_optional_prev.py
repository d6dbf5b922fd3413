# EXPECT: scripts
"""Motion-compensated association: optional previous positions refine the cost."""
from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.motion_weight = 0.5

    def forward(self, dets: torch.Tensor, tracks: torch.Tensor, prev: Optional[torch.Tensor] = None):
        cost = torch.cdist(dets, tracks)
        if prev is not None:
            velocity = tracks - prev
            cost = cost + self.motion_weight * torch.cdist(dets, tracks + velocity)
        return cost.argmin(dim=1)


def example_inputs():
    return [(torch.randn(4, 2), torch.randn(3, 2)), (torch.randn(4, 2), torch.randn(3, 2), torch.randn(3, 2))]
