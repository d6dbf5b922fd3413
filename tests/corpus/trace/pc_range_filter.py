"""Point cloud range filter + voxel statistics with a loop over the kept points."""
# EXPECT: diverges
import torch
from torch import nn


class RangeFilterStats(nn.Module):
    def __init__(self, max_range=5.0):
        super().__init__()
        self.max_range = max_range

    def forward(self, points):
        r = points[:, :3].norm(dim=-1)
        kept = points[r < self.max_range]
        total = points.new_zeros(points.shape[1])
        for p in kept:
            total = total + p
        return total / max(kept.shape[0], 1)


def make():
    torch.manual_seed(0)
    return RangeFilterStats().eval(), [(torch.randn(20, 4) * 3,), (torch.randn(20, 4) * 3,)]
