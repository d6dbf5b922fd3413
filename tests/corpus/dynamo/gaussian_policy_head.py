"""Control: squashed-Gaussian policy head (SAC style) returning an action and its log-probability."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, obs=12, act=3):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs, 64), nn.ReLU())
        self.mu = nn.Linear(64, act)
        self.log_std = nn.Linear(64, act)

    def forward(self, obs):
        h = self.trunk(obs)
        std = self.log_std(h).clamp(-5.0, 2.0).exp()
        dist = torch.distributions.Normal(self.mu(h), std)
        u = dist.rsample()
        action = torch.tanh(u)
        log_prob = dist.log_prob(u) - torch.log(1 - action.pow(2) + 1e-6)
        return action, log_prob.sum(-1) - 0.0 * math.log(2.0)


def inputs():
    return [(torch.randn(5, 12),), (torch.randn(5, 12),)]
