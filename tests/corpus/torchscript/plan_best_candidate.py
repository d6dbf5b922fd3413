# EXPECT: fails
"""Sampling planner: score candidate trajectories, keep the best one seen."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scorer = nn.Sequential(nn.Flatten(1), nn.Linear(20, 1))

    def forward(self, candidates: torch.Tensor):
        best_traj = None
        best_score = -1e9
        for i in range(candidates.shape[0]):
            s = float(self.scorer(candidates[i : i + 1]))
            if s > best_score:
                best_score = s
                best_traj = candidates[i]
        return best_traj


def example_inputs():
    return [(torch.randn(5, 10, 2),)]
