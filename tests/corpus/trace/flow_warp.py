"""Optical-flow backward warping with a base grid built from the input size (trace-safe)."""
# EXPECT: stable
import torch
import torch.nn.functional as F
from torch import nn


class FlowWarp(nn.Module):
    def forward(self, img, flow):
        b, _, h, w = img.shape
        ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        base = torch.stack([xs, ys], 0).unsqueeze(0).type_as(flow)
        coords = base + flow
        gx = 2.0 * coords[:, 0] / (w - 1) - 1.0
        gy = 2.0 * coords[:, 1] / (h - 1) - 1.0
        return F.grid_sample(img, torch.stack([gx, gy], -1), align_corners=True)


def make():
    torch.manual_seed(0)
    return FlowWarp().eval(), [(torch.randn(1, 3, 6, 6), torch.randn(1, 2, 6, 6)),
                               (torch.randn(2, 3, 8, 10), torch.randn(2, 2, 8, 10))]
