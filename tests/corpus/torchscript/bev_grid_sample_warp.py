# EXPECT: scripts
"""Warp a BEV feature map with an ego-motion affine transform (temporal fusion)."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fuse = nn.Conv2d(16, 8, 1)

    def forward(self, prev_bev: torch.Tensor, cur_bev: torch.Tensor, theta: torch.Tensor):
        grid = F.affine_grid(theta, list(prev_bev.shape), align_corners=False)
        warped = F.grid_sample(prev_bev, grid, align_corners=False)
        return self.fuse(torch.cat([warped, cur_bev], dim=1))


def example_inputs():
    return [(torch.randn(1, 8, 8, 8), torch.randn(1, 8, 8, 8), torch.eye(2, 3).unsqueeze(0))]
