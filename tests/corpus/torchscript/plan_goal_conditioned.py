# EXPECT: scripts
"""Goal-conditioned waypoint regressor."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, n_waypoints: int = 6):
        super().__init__()
        self.n = n_waypoints
        self.mlp = nn.Sequential(nn.Linear(16 + 2, 64), nn.GELU(), nn.Linear(64, n_waypoints * 2))

    def forward(self, scene: torch.Tensor, goal: torch.Tensor) -> torch.Tensor:
        h = torch.cat([scene, goal], dim=-1)
        return self.mlp(h).view(-1, self.n, 2).cumsum(dim=1)


def example_inputs():
    return [(torch.randn(3, 16), torch.randn(3, 2))]
