# EXPECT: fails
"""Ball-query grouping with an optional validity mask over input points."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, radius: float = 0.5, nsample: int = 4):
        super().__init__()
        self.radius = radius
        self.nsample = nsample

    def forward(self, xyz, new_xyz, valid=None):
        d = torch.cdist(new_xyz, xyz)
        if valid is not None:
            d = d.masked_fill(~valid.unsqueeze(1), 1e9)
        d = d.masked_fill(d > self.radius, 1e9)
        return d.topk(self.nsample, dim=-1, largest=False).indices


def example_inputs():
    return [(torch.randn(2, 16, 3), torch.randn(2, 4, 3))]
