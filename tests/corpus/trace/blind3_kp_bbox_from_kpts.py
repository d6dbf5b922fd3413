"""Derives person boxes from keypoints with min/max over the joint axis (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class KptsToBox(nn.Module):
    def __init__(self, pad=0.1):
        super().__init__()
        self.pad = pad

    def forward(self, kpts, vis):
        big = torch.full_like(kpts[..., 0], 1e6)
        xs = torch.where(vis > 0.5, kpts[..., 0], big)
        ys = torch.where(vis > 0.5, kpts[..., 1], big)
        x0, y0 = xs.min(-1).values, ys.min(-1).values
        xs2 = torch.where(vis > 0.5, kpts[..., 0], -big)
        ys2 = torch.where(vis > 0.5, kpts[..., 1], -big)
        x1, y1 = xs2.max(-1).values, ys2.max(-1).values
        w, h = x1 - x0, y1 - y0
        return torch.stack([x0 - self.pad * w, y0 - self.pad * h, x1 + self.pad * w, y1 + self.pad * h], -1)


def make():
    torch.manual_seed(0)
    return KptsToBox().eval(), [(torch.rand(2, 5, 2), torch.ones(2, 5)), (torch.rand(3, 5, 2), torch.rand(3, 5))]
