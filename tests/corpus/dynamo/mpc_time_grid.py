"""Control: a sampling-based MPC head that rolls a learned dynamics model over a time grid for the
horizon the planner requests (short near obstacles, long on open road)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, state=6, action=2):
        super().__init__()
        self.dyn = nn.Linear(state + action + 1, state)
        self.action = action

    def forward(self, x0, actions, steps: int = 10):
        t = torch.linspace(0.0, 1.0, steps)
        u = actions[:, :steps]
        xs = x0[:, None].expand(-1, u.shape[1], -1)
        inp = torch.cat([xs, u, t[None, : u.shape[1], None].expand(x0.shape[0], -1, 1)], -1)
        return self.dyn(inp).cumsum(1)


def inputs():
    return [(torch.randn(4, 6), torch.randn(4, 40, 2), k) for k in (10, 20, 15, 30, 25)]
