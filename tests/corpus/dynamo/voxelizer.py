"""Lidar: voxelise a point cloud and average the points that fall in each voxel."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, voxel=0.5):
        super().__init__()
        self.voxel = voxel

    def forward(self, points):
        coords = torch.floor(points[:, :3] / self.voxel).long()
        uniq, inverse = torch.unique(coords, dim=0, return_inverse=True)  # BREAK: GB0036
        sums = torch.zeros(uniq.shape[0], points.shape[1]).index_add_(0, inverse, points)
        counts = torch.bincount(inverse).clamp(min=1).unsqueeze(-1)  # BREAK: GB0036
        return uniq, sums / counts


def inputs():
    return [(torch.rand(50, 4) * 3,), (torch.rand(50, 4) * 3,)]
