# EXPECT: fails
"""Centre a point cloud and scale it into the unit sphere."""
import torch
from torch import nn


class Model(nn.Module):
    def forward(self, pts: torch.Tensor):
        centroid = pts.mean(dim=1, keepdim=True)
        pts = pts - centroid
        scale = pts.norm(dim=-1).amax(dim=1, keepdim=True).clamp(min=1e-6)
        return pts / scale.unsqueeze(-1), centroid, scale


def example_inputs():
    return [(torch.randn(2, 30, 3),)]
