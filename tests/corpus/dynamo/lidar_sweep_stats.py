"""Lidar: per-sweep statistics keyed by the sweep's point count, kept for a debug overlay; the sweep size
changes every frame."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.embed = nn.Linear(dim, 16)
        self.stats = {}

    def forward(self, points):
        feats = self.embed(points).relu()
        key = "sweep_%d" % points.shape[0]  # BREAK: GB0088
        self.stats[key] = feats.detach().mean(0)
        return feats.max(0).values


def inputs():
    return [(torch.randn(n, 4),) for n in (1000, 1100, 1200, 1300)]
