"""Speed profile with a curvature limit, using torch.where and cumulative sums (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class SpeedProfile(nn.Module):
    def __init__(self, v_max=15.0, a_lat=3.0):
        super().__init__()
        self.v_max = v_max
        self.a_lat = a_lat

    def forward(self, path):
        seg = path[:, 1:] - path[:, :-1]
        heading = torch.atan2(seg[..., 1], seg[..., 0])
        dtheta = (heading[:, 1:] - heading[:, :-1]).abs()
        ds = seg.norm(dim=-1)[:, 1:].clamp(min=1e-3)
        curvature = dtheta / ds
        v = torch.sqrt(self.a_lat / curvature.clamp(min=1e-4))
        v = torch.where(v > self.v_max, torch.full_like(v, self.v_max), v)
        return torch.cumsum(ds / v, dim=1)


def make():
    torch.manual_seed(0)
    return SpeedProfile().eval(), [(torch.randn(2, 10, 2).cumsum(1),), (torch.randn(3, 14, 2).cumsum(1),)]
