# EXPECT: scripts
"""Sparse-to-dense depth completion with confidence-weighted fusion."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rgb = nn.Conv2d(3, 8, 3, padding=1)
        self.dep = nn.Conv2d(1, 8, 3, padding=1)
        self.out = nn.Conv2d(16, 2, 1)

    def forward(self, rgb: torch.Tensor, sparse: torch.Tensor):
        valid = (sparse > 0).float()
        f = torch.cat([self.rgb(rgb), self.dep(sparse * valid)], 1).relu()
        dense, conf = self.out(f).chunk(2, dim=1)
        conf = conf.sigmoid()
        return conf * dense + (1 - conf) * sparse


def example_inputs():
    return [(torch.randn(1, 3, 8, 8), torch.rand(1, 1, 8, 8))]
