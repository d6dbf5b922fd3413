# EXPECT: fails
"""Safety filter that logs interventions to stderr."""
import sys

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.max_speed = 3.0

    def forward(self, cmd: torch.Tensor):
        over = cmd.abs() > self.max_speed
        if bool(over.any()):
            print("safety filter: clamping", int(over.sum()), "commands", file=sys.stderr)
        return cmd.clamp(-self.max_speed, self.max_speed)


def example_inputs():
    return [(torch.randn(5) * 4,)]
