"""PointPillars scatter: pillar features written into a canvas at their coordinates (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class PillarScatter(nn.Module):
    def __init__(self, nx=10, ny=10):
        super().__init__()
        self.nx = nx
        self.ny = ny

    def forward(self, pillar_feats, coords):
        c = pillar_feats.shape[1]
        canvas = pillar_feats.new_zeros(c, self.nx * self.ny)
        idx = coords[:, 1] * self.nx + coords[:, 0]
        canvas = canvas.index_put((torch.arange(c).unsqueeze(1), idx.unsqueeze(0)), pillar_feats.t())
        return canvas.view(1, c, self.ny, self.nx)


def make():
    g = torch.Generator().manual_seed(0)
    c1 = torch.randperm(100, generator=g)[:12]
    c2 = torch.randperm(100, generator=g)[:20]
    return PillarScatter().eval(), [(torch.randn(12, 6), torch.stack([c1 % 10, c1 // 10], 1)),
                                    (torch.randn(20, 6), torch.stack([c2 % 10, c2 // 10], 1))]
