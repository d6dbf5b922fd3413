# EXPECT: fails
"""Policy that returns an action and, when asked, a diagnostics tuple."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pi = nn.Linear(4, 2)
        self.v = nn.Linear(4, 1)

    def forward(self, obs: torch.Tensor, with_value: bool = False):
        logits = self.pi(obs)
        if with_value:
            return logits.argmax(-1), self.v(obs)
        return logits.argmax(-1)


def example_inputs():
    return [(torch.randn(2, 4),)]
