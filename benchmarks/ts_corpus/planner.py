import os
import random
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List, Tuple


class TrajectoryScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, traj):
        vel = traj[:, 1:] - traj[:, :-1]
        acc = vel[:, 1:] - vel[:, :-1]
        cost = torch.stack([vel.norm(dim=-1).mean(1), acc.norm(dim=-1).mean(1), traj[:, -1].norm(dim=-1)], 1)
        return cost @ self.w


class RolloutPlanner(nn.Module):
    def __init__(self):
        super().__init__()
        self.dyn = nn.Linear(4, 4)
        self.horizon = 5

    def forward(self, s):
        states = []
        for _ in range(self.horizon):
            s = s + self.dyn(s)
            states.append(s)
        return torch.stack(states, 1)


class StochasticPlanner(nn.Module):
    def __init__(self):
        super().__init__()
        self.dyn = nn.Linear(4, 4)

    def forward(self, s):
        if random.random() < 0.1:
            s = s + torch.randn_like(s)
        return self.dyn(s)


class EnvConfiguredPlanner(nn.Module):
    def __init__(self):
        super().__init__()
        self.dyn = nn.Linear(4, 4)

    def forward(self, s):
        steps = int(os.environ.get("PLAN_STEPS", "3"))
        for _ in range(steps):
            s = self.dyn(s)
        return s


class GoalConditioned(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(8, 4)

    def forward(self, s, g):
        return self.enc(torch.cat([s, g], dim=-1))


class CostMapSampler(nn.Module):
    def forward(self, costmap, pts):
        grid = pts.unsqueeze(1) * 2 - 1
        return F.grid_sample(costmap, grid, align_corners=False).squeeze(2)


class BeamPlanner(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, cands):
        scored = [(self.score(c).sum(), c) for c in cands.unbind(0)]
        best = max(s for s, _ in scored)
        return best


class WaypointSmoother(nn.Module):
    def forward(self, wp):
        def smooth(a, b):
            return 0.5 * (a + b)
        return smooth(wp[:, 1:], wp[:, :-1])


class MPCStep(nn.Module):
    def __init__(self):
        super().__init__()
        self.A = nn.Parameter(torch.eye(4))
        self.B = nn.Parameter(torch.zeros(4, 2))

    def forward(self, x, u):
        try:
            return x @ self.A.T + u @ self.B.T
        except RuntimeError:
            return x


class ModePlanner(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode = "fast"
        self.fast = nn.Linear(4, 4)
        self.safe = nn.Linear(4, 4)

    def forward(self, s):
        if self.mode == "fast":
            return self.fast(s)
        return self.safe(s)
