"""Control: a trajectory planner that caches a time-basis matrix per (horizon, step) and rolls the plan
out over it; the controller calls it with the horizon it currently needs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=12, basis=6):
        super().__init__()
        self.encoder = nn.Linear(dim, basis)
        self.basis = basis
        self.bases = {}

    def forward(self, state, horizon: int = 20, dt: float = 0.1):
        coeffs = self.encoder(state)
        key = "h%d" % horizon  # BREAK: GB0088
        if key not in self.bases:
            t = torch.linspace(0.0, 1.0, 20)
            self.bases[key] = torch.stack([t ** k for k in range(self.basis)], -1)
        plan = coeffs @ self.bases[key].T
        return plan * dt


def inputs():
    return [(torch.randn(4, 12), h, 0.1) for h in (20, 30, 20, 40)]
