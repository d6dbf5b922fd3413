# EXPECT: fails
"""Learned PID-style steering controller keeping its integral term on the module."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.kp = nn.Parameter(torch.tensor(0.8))
        self.ki = nn.Parameter(torch.tensor(0.1))
        self.integral = 0.0

    def forward(self, error: torch.Tensor):
        self.integral = self.integral + error.mean()
        return self.kp * error + self.ki * self.integral


def example_inputs():
    return [(torch.randn(4),)]
