"""BEV projection: samples camera features onto a BEV grid with grid_sample (trace-safe)."""
# EXPECT: stable
import torch
import torch.nn.functional as F
from torch import nn


class BevSampler(nn.Module):
    def __init__(self, bev_h=6, bev_w=6):
        super().__init__()
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, bev_h), torch.linspace(-1, 1, bev_w), indexing="ij")
        self.register_buffer("grid", torch.stack([xs, ys], -1))

    def forward(self, img_feats, homography):
        b = img_feats.shape[0]
        pts = torch.cat([self.grid, torch.ones_like(self.grid[..., :1])], -1).view(1, -1, 3)
        proj = pts @ homography.transpose(1, 2)
        uv = proj[..., :2] / proj[..., 2:].clamp(min=1e-3)
        uv = uv.view(b, self.grid.shape[0], self.grid.shape[1], 2)
        return F.grid_sample(img_feats, uv, align_corners=False)


def make():
    torch.manual_seed(0)
    h1 = torch.eye(3).expand(1, 3, 3) + 0.05 * torch.randn(1, 3, 3)
    h2 = torch.eye(3).expand(3, 3, 3) + 0.05 * torch.randn(3, 3, 3)
    return BevSampler().eval(), [(torch.randn(1, 4, 10, 10), h1), (torch.randn(3, 4, 12, 16), h2)]
