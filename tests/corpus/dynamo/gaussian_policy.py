"""Control: a squashed Gaussian policy (SAC style) with reparameterised sampling."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, obs=8, act=2):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 32), nn.ReLU())
        self.mu = nn.Linear(32, act)
        self.log_std = nn.Linear(32, act)

    def forward(self, obs, noise):
        h = self.body(obs)
        mu = self.mu(h)
        log_std = self.log_std(h).clamp(-5.0, 2.0)
        pre = mu + noise * log_std.exp()
        action = torch.tanh(pre)
        logp = (-0.5 * noise ** 2 - log_std - 0.5 * math.log(2 * math.pi)).sum(-1)
        logp = logp - torch.log1p(-action ** 2 + 1e-6).sum(-1)
        return action, logp


def inputs():
    return [(torch.randn(4, 8), torch.randn(4, 2)) for _ in range(2)]
