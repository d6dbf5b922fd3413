# EXPECT: fails
"""Throttle/brake head with an optional action limit supplied by the vehicle config."""
from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 2)

    def forward(self, feat: torch.Tensor, max_action: Optional[float] = None):
        a = self.head(feat)
        return a.clamp(-max_action, max_action)


def example_inputs():
    return [(torch.randn(3, 8), 0.5)]
