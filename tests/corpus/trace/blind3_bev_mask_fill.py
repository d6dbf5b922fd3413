"""BEV semantic map: fills cells outside the ego range mask with a constant (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class RangeMaskFill(nn.Module):
    def __init__(self, radius=3.0):
        super().__init__()
        self.radius = radius

    def forward(self, bev):
        h, w = bev.shape[-2:]
        ys = torch.arange(h, dtype=bev.dtype) - (h - 1) / 2
        xs = torch.arange(w, dtype=bev.dtype) - (w - 1) / 2
        dist = (ys[:, None] ** 2 + xs[None, :] ** 2).sqrt()
        return bev.masked_fill(dist > self.radius, -1.0)


def make():
    torch.manual_seed(0)
    return RangeMaskFill().eval(), [(torch.randn(1, 2, 8, 8),), (torch.randn(2, 2, 10, 6),)]
