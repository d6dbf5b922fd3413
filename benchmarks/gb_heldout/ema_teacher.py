"""Student/teacher pair where the teacher is refreshed from the student by deepcopy."""
import copy

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.student = nn.Linear(dim, dim)
        self.teacher = copy.deepcopy(self.student)

    def forward(self, x):
        target = self.teacher(x).detach()
        pred = self.student(x)
        return ((pred - target) ** 2).mean()


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
