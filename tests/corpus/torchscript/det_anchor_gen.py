# EXPECT: scripts
"""Anchor generator over several strides and aspect ratios (RetinaNet style)."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.strides = (8, 16, 32)
        self.ratios = [0.5, 1.0, 2.0]
        self.base_size = 4.0

    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        all_anchors: List[torch.Tensor] = []
        for level, f in enumerate(feats):
            stride = self.strides[level]
            h, w = f.shape[-2], f.shape[-1]
            sy = torch.arange(h, dtype=torch.float32) * stride
            sx = torch.arange(w, dtype=torch.float32) * stride
            cy, cx = torch.meshgrid(sy, sx, indexing="ij")
            for r in self.ratios:
                size = self.base_size * stride
                hw = size * (r ** 0.5) / 2
                hh = size / (r ** 0.5) / 2
                a = torch.stack([cx - hw, cy - hh, cx + hw, cy + hh], dim=-1).reshape(-1, 4)
                all_anchors.append(a)
        return torch.cat(all_anchors, 0)


def example_inputs():
    return [([torch.randn(1, 4, 8, 8), torch.randn(1, 4, 4, 4), torch.randn(1, 4, 2, 2)],)]
