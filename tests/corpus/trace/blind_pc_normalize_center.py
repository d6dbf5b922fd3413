"""Point cloud normalisation: centre on the centroid, scale by the furthest point's distance."""
# EXPECT: stable
import torch
from torch import nn


class UnitSphere(nn.Module):
    def forward(self, pts):
        centered = pts - pts.mean(0, keepdim=True)
        radius = centered.norm(dim=1).max()
        return centered / radius


def make():
    torch.manual_seed(0)
    return UnitSphere().eval(), [(torch.randn(10, 3),), (torch.randn(17, 3) * 4,)]
