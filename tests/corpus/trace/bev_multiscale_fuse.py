"""Fuses multi-scale BEV features; resizes each level to the first one's size."""
# EXPECT: stable
import torch
import torch.nn.functional as F
from torch import nn


class MultiScaleFuse(nn.Module):
    def __init__(self, channels=4, levels=3, use_residual=True):
        super().__init__()
        self.proj = nn.ModuleList([nn.Conv2d(channels, channels, 1) for _ in range(levels)])
        self.use_residual = use_residual

    def forward(self, feats):
        target = feats[0].shape[-2:]
        out = 0
        for proj, f in zip(self.proj, feats):
            if f.shape[-2:] != target:
                f = F.interpolate(f, size=target, mode="bilinear", align_corners=False)
            out = out + proj(f)
        if self.use_residual:
            out = out + feats[0]
        return out


def make():
    torch.manual_seed(0)
    s1 = [torch.randn(1, 4, 8, 8), torch.randn(1, 4, 4, 4), torch.randn(1, 4, 2, 2)]
    s2 = [torch.randn(2, 4, 12, 12), torch.randn(2, 4, 6, 6), torch.randn(2, 4, 3, 3)]
    return MultiScaleFuse().eval(), [(s1,), (s2,)]
