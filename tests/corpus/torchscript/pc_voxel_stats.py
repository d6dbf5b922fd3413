# EXPECT: fails
"""Voxelisation statistics reported next to the voxel features (for logging on device)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.voxel = 0.25

    def forward(self, points: torch.Tensor):
        coords = (points[:, :3] / self.voxel).floor().long()
        uniq, inverse = torch.unique(coords, dim=0, return_inverse=True)
        feats = torch.zeros(uniq.shape[0], points.shape[1]).index_add_(0, inverse, points)
        stats = {}
        stats["num_points"] = points.shape[0]
        stats["num_voxels"] = uniq.shape[0]
        return feats, stats


def example_inputs():
    return [(torch.rand(40, 4),)]
