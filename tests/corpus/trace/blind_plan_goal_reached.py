"""Planner step that stops (zero velocity) once the goal is within tolerance."""
# EXPECT: diverges
import torch
from torch import nn


class GoalController(nn.Module):
    def __init__(self, tol=0.5, gain=0.8):
        super().__init__()
        self.tol = tol
        self.gain = gain

    def forward(self, pos, goal):
        err = goal - pos
        dist = torch.linalg.norm(err)
        reached = dist.lt(self.tol)
        if reached:
            return torch.zeros_like(err)
        return self.gain * err


def make():
    return GoalController().eval(), [(torch.tensor([0.0, 0.0]), torch.tensor([3.0, 4.0])),
                                     (torch.tensor([2.9, 4.1]), torch.tensor([3.0, 4.0]))]
