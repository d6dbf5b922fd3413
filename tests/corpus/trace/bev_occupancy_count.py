"""BEV occupancy head that reports the number of occupied cells as a Python int tensor."""
# EXPECT: stable
import torch
from torch import nn


class OccupancyCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, bev):
        occ = self.head(bev).sigmoid()
        occupied = torch.nonzero(occ[0, 0] > 0.5)
        count = occupied.shape[0]
        density = torch.full((1,), count / occ[0, 0].numel())
        return occ, density


def make():
    torch.manual_seed(0)
    return OccupancyCounter().eval(), [(torch.randn(1, 4, 8, 8),), (torch.randn(1, 4, 8, 8) * 4,)]
