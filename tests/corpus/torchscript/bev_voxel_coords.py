# EXPECT: scripts
"""Point-to-voxel coordinate computation with the voxel size kept as a float list attribute."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.voxel_size = [0.2, 0.2, 4.0]
        self.pc_range = [-3.2, -3.2, -2.0, 3.2, 3.2, 2.0]

    def forward(self, points: torch.Tensor):
        lo = torch.tensor(self.pc_range[:3])
        size = torch.tensor(self.voxel_size)
        coords = ((points[:, :3] - lo) / size).floor().long()
        inside = (coords >= 0).all(dim=1)
        return coords[inside]


def example_inputs():
    return [(torch.rand(50, 4) * 6 - 3,)]
