"""Voxelisation: unique voxel ids and the number of points per voxel via return_counts (tensor ops)."""
# EXPECT: stable
import torch
from torch import nn


class VoxelCounts(nn.Module):
    def __init__(self, size=1.0):
        super().__init__()
        self.size = size

    def forward(self, points):
        vox = (points[:, :2] / self.size).floor().long()
        key = vox[:, 0] * 1000 + vox[:, 1]
        _, counts = torch.unique(key, return_counts=True)
        return counts.float().mean().reshape(1)


def make():
    torch.manual_seed(0)
    return VoxelCounts().eval(), [(torch.rand(12, 3) * 3,), (torch.rand(12, 3) * 2,)]
