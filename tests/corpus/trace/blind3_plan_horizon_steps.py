"""Rolls a kinematic model forward for as many steps as the control sequence has (Python loop)."""
# EXPECT: diverges
import torch
from torch import nn


class Rollout(nn.Module):
    def __init__(self, dt=0.1):
        super().__init__()
        self.dt = dt

    def forward(self, state, controls):
        traj = [state]
        for u in controls.unbind(1):
            x, y, yaw, v = traj[-1].unbind(-1)
            v = v + u[:, 0] * self.dt
            yaw = yaw + u[:, 1] * self.dt
            traj.append(torch.stack([x + v * torch.cos(yaw) * self.dt, y + v * torch.sin(yaw) * self.dt, yaw, v], -1))
        return torch.stack(traj, 1)


def make():
    torch.manual_seed(0)
    return Rollout().eval(), [(torch.zeros(2, 4), torch.randn(2, 5, 2)), (torch.zeros(2, 4), torch.randn(2, 8, 2))]
