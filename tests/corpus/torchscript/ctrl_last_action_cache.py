# EXPECT: fails
"""Action smoother that remembers the previous command for rate limiting."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = nn.Linear(4, 2)
        self.max_delta = 0.2

    def forward(self, obs: torch.Tensor):
        a = self.policy(obs)
        if hasattr(self, "prev_action"):
            a = self.prev_action + (a - self.prev_action).clamp(-self.max_delta, self.max_delta)
        self.prev_action = a.detach()
        return a


def example_inputs():
    return [(torch.randn(1, 4),)]
