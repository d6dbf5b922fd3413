# EXPECT: scripts
"""Kendall et al. homoscedastic-uncertainty weighting of per-task losses."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, num_tasks: int = 3):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(num_tasks))

    def forward(self, losses: torch.Tensor) -> torch.Tensor:
        precision = torch.exp(-self.log_vars)
        return (precision * losses + self.log_vars).sum()


def example_inputs():
    return [(torch.rand(3),)]
