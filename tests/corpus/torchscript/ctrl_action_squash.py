# EXPECT: scripts
"""Gaussian policy head with tanh squashing into the action bounds (SAC style)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 4))
        self.register_buffer("low", torch.tensor([-1.0, -0.5]))
        self.register_buffer("high", torch.tensor([1.0, 0.5]))

    def forward(self, obs: torch.Tensor, deterministic: bool = True):
        mu, log_std = self.net(obs).chunk(2, dim=-1)
        if deterministic:
            a = mu
        else:
            a = mu + log_std.clamp(-5, 2).exp() * torch.randn_like(mu)
        return self.low + (torch.tanh(a) + 1) * 0.5 * (self.high - self.low)


def example_inputs():
    return [(torch.randn(3, 6),), (torch.randn(3, 6), False)]
