"""Perception: a resize layer whose interpolation mode is chosen per call by the caller."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x, mode: str = "bilinear"):
        x = self.conv(x)
        if mode == "nearest":
            return F.interpolate(x, scale_factor=2.0, mode="nearest")
        if mode in ("bilinear", "bicubic"):
            return F.interpolate(x, scale_factor=2.0, mode=mode, align_corners=False)
        return F.avg_pool2d(x, 2)


def inputs():
    return [(torch.randn(1, 3, 8, 8), m) for m in ("bilinear", "nearest", "bicubic", "area", "pool")]
