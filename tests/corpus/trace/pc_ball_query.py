"""Ball query grouping: neighbours within a radius, padded to a fixed count (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class BallQuery(nn.Module):
    def __init__(self, radius=0.5, k=4):
        super().__init__()
        self.radius = radius
        self.k = k

    def forward(self, centers, xyz):
        d = torch.cdist(centers, xyz)
        n = xyz.shape[0]
        idx = torch.arange(n).expand(centers.shape[0], n)
        idx = torch.where(d < self.radius, idx, torch.full_like(idx, n))
        idx = idx.sort(dim=1).values[:, : self.k]
        first = idx[:, :1].expand(-1, self.k)
        idx = torch.where(idx == n, first, idx).clamp(max=n - 1)
        return xyz[idx] - centers.unsqueeze(1)


def make():
    torch.manual_seed(0)
    return BallQuery().eval(), [(torch.rand(3, 3), torch.rand(20, 3)), (torch.rand(5, 3), torch.rand(30, 3))]
