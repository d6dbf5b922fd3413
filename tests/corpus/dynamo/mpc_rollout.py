"""Control: a fixed-horizon rollout of a learned dynamics model for MPC cost evaluation."""
import torch
import torch.nn as nn


class Dynamics(nn.Module):
    def __init__(self, sdim=4, adim=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(sdim + adim, 32), nn.Tanh(), nn.Linear(32, sdim))

    def forward(self, s, a):
        return s + self.net(torch.cat([s, a], dim=-1))


class Model(nn.Module):
    def __init__(self, horizon=6):
        super().__init__()
        self.dyn = Dynamics()
        self.horizon = horizon
        self.register_buffer("goal", torch.zeros(4))

    def forward(self, state, actions):
        cost = torch.zeros(state.shape[0])
        s = state
        for t in range(self.horizon):
            s = self.dyn(s, actions[:, t])
            cost = cost + ((s - self.goal) ** 2).sum(-1)
        return cost


def inputs():
    return [(torch.randn(5, 4), torch.randn(5, 6, 2)) for _ in range(2)]
