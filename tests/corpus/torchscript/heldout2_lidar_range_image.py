# EXPECT: scripts
"""Project a lidar sweep into a range image (spherical projection)."""
import math

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, h: int = 16, w: int = 64):
        super().__init__()
        self.h = h
        self.w = w
        self.fov_up = math.radians(10.0)
        self.fov_down = math.radians(-30.0)

    def forward(self, pts: torch.Tensor) -> torch.Tensor:
        r = pts.norm(dim=1, p=2).clamp(min=1e-6)
        yaw = torch.atan2(pts[:, 1], pts[:, 0])
        pitch = torch.asin(pts[:, 2] / r)
        u = ((1.0 - (yaw / math.pi + 1.0) / 2.0) * self.w).long().clamp(0, self.w - 1)
        fov = self.fov_up - self.fov_down
        v = ((1.0 - (pitch - self.fov_down) / fov) * self.h).long().clamp(0, self.h - 1)
        img = torch.zeros(self.h, self.w)
        img[v, u] = r
        return img


def example_inputs():
    return [(torch.randn(100, 3) * 10,)]
