# EXPECT: fails
"""Time-parameterisation that accepts the step either as a float or a per-sample tensor."""
from typing import Union

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, velocities: torch.Tensor, dt: Union[float, torch.Tensor]):
        steps = velocities * dt
        return steps.cumsum(dim=1)


def example_inputs():
    return [(torch.randn(2, 5, 2), 0.1)]
