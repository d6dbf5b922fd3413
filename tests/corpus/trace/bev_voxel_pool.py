"""Lift-splat style voxel pooling with index_add (trace-safe scatter into the BEV grid)."""
# EXPECT: stable
import torch
from torch import nn


class VoxelPool(nn.Module):
    def __init__(self, nx=8, ny=8, res=1.0):
        super().__init__()
        self.nx = nx
        self.ny = ny
        self.res = res

    def forward(self, points, feats):
        ix = (points[:, 0] / self.res).long().clamp(0, self.nx - 1)
        iy = (points[:, 1] / self.res).long().clamp(0, self.ny - 1)
        flat = iy * self.nx + ix
        bev = feats.new_zeros(self.nx * self.ny, feats.shape[1])
        bev = bev.index_add(0, flat, feats)
        return bev.view(self.ny, self.nx, -1).permute(2, 0, 1)


def make():
    torch.manual_seed(0)
    return VoxelPool().eval(), [(torch.rand(20, 3) * 8, torch.randn(20, 5)), (torch.rand(35, 3) * 8, torch.randn(35, 5))]
