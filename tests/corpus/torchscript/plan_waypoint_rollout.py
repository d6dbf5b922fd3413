# EXPECT: scripts
"""Kinematic rollout of a unicycle model over a fixed horizon."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, horizon: int = 8, dt: float = 0.1):
        super().__init__()
        self.horizon = horizon
        self.dt = dt
        self.policy = nn.Linear(3, 2)

    def forward(self, state: torch.Tensor):
        traj = []
        for _ in range(self.horizon):
            v, w = self.policy(state).unbind(-1)
            x = state[:, 0] + v * torch.cos(state[:, 2]) * self.dt
            y = state[:, 1] + v * torch.sin(state[:, 2]) * self.dt
            th = state[:, 2] + w * self.dt
            state = torch.stack([x, y, th], dim=-1)
            traj.append(state)
        return torch.stack(traj, dim=1)


def example_inputs():
    return [(torch.randn(2, 3),)]
