# EXPECT: fails
"""Trajectory cost with weights passed in as a loosely typed config mapping."""
from typing import Any

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, traj: torch.Tensor, goal: torch.Tensor, weights: Any):
        goal_cost = (traj[:, -1] - goal).norm(dim=-1)
        smooth_cost = (traj[:, 2:] - 2 * traj[:, 1:-1] + traj[:, :-2]).norm(dim=-1).sum(-1)
        return weights["goal"] * goal_cost + weights["smooth"] * smooth_cost


def example_inputs():
    return [(torch.randn(4, 10, 2), torch.randn(2), {"goal": 1.0, "smooth": 0.1})]
