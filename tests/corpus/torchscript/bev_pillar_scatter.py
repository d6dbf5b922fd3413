# EXPECT: scripts
"""PointPillars scatter: pillar features written into a dense BEV canvas."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, nx: int = 16, ny: int = 16, channels: int = 8):
        super().__init__()
        self.nx = nx
        self.ny = ny
        self.channels = channels

    def forward(self, pillar_features: torch.Tensor, coords: torch.Tensor):
        canvas = torch.zeros(self.channels, self.nx * self.ny, dtype=pillar_features.dtype)
        indices = (coords[:, 0] * self.nx + coords[:, 1]).long()
        canvas[:, indices] = pillar_features.t()
        return canvas.view(1, self.channels, self.ny, self.nx)


def example_inputs():
    return [(torch.randn(10, 8), torch.randint(0, 16, (10, 2)))]
