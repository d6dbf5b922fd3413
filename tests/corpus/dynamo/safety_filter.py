"""Control: a safety layer that rescales actions when any of them exceeds the actuator limit."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, limit=1.0):
        super().__init__()
        self.policy = nn.Linear(6, 2)
        self.limit = limit

    def forward(self, obs):
        action = self.policy(obs) * 3.0
        peak = action.abs().max()
        if peak > self.limit:  # BREAK: GB0170
            action = action * (self.limit / peak)
        return action


def inputs():
    return [(torch.randn(4, 6),), (torch.randn(4, 6),)]
