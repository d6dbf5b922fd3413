# EXPECT: scripts
"""Trajectory forecaster configured from a small config object stored on the module."""
import torch
from torch import nn


class ForecastConfig:
    def __init__(self):
        self.horizon = 6
        self.hidden = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = ForecastConfig()
        self.enc = nn.GRU(2, self.cfg.hidden, batch_first=True)
        self.dec = nn.Linear(self.cfg.hidden, self.cfg.horizon * 2)

    def forward(self, past: torch.Tensor):
        _, h = self.enc(past)
        return self.dec(h[-1]).view(-1, self.cfg.horizon, 2)


def example_inputs():
    return [(torch.randn(3, 8, 2),)]
