"""BEV encoder: collapses the height axis with a learned weighting (static sizes, trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class HeightCollapse(nn.Module):
    def __init__(self, channels=4, heights=3):
        super().__init__()
        self.weights = nn.Parameter(torch.ones(heights) / heights)
        self.mix = nn.Conv2d(channels, channels, 1)

    def forward(self, vox):
        b, c, z, y, x = vox.shape
        w = self.weights.softmax(0).view(1, 1, z, 1, 1)
        return self.mix((vox * w).sum(2))


def make():
    torch.manual_seed(0)
    return HeightCollapse().eval(), [(torch.randn(1, 4, 3, 5, 5),), (torch.randn(2, 4, 3, 7, 6),)]
