# EXPECT: fails
"""Multi-task head where each task's weight is read from an attribute named after the task."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tasks = ["depth", "seg"]
        self.w_depth = 1.0
        self.w_seg = 0.5
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor):
        out = self.head(x)
        total = torch.zeros(x.shape[0])
        for i, t in enumerate(self.tasks):
            total = total + getattr(self, "w_" + t) * out[:, i]
        return total


def example_inputs():
    return [(torch.randn(4, 8),)]
