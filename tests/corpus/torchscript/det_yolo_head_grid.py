# EXPECT: fails
"""YOLO-style detection head that lazily builds its grid on the first call and caches it."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, num_anchors: int = 3, num_classes: int = 4, stride: int = 16):
        super().__init__()
        self.no = num_classes + 5
        self.na = num_anchors
        self.stride = stride
        self.conv = nn.Conv2d(32, self.na * self.no, 1)
        self.grid = None

    def forward(self, x):
        bs, _, ny, nx = x.shape
        p = self.conv(x).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2)
        if self.grid is None or self.grid.shape[2] != ny:
            yv, xv = torch.meshgrid(torch.arange(ny), torch.arange(nx), indexing="ij")
            self.grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
        xy = (p[..., :2].sigmoid() * 2 - 0.5 + self.grid) * self.stride
        return torch.cat([xy, p[..., 2:]], dim=-1).view(bs, -1, self.no)


def example_inputs():
    return [(torch.randn(1, 32, 8, 8),)]
