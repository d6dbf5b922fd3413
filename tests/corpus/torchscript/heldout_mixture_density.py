# EXPECT: scripts
"""Mixture density output head for multimodal trajectory prediction."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, modes: int = 3):
        super().__init__()
        self.modes = modes
        self.head = nn.Linear(16, modes * 5)

    def forward(self, h: torch.Tensor):
        out = self.head(h).view(-1, self.modes, 5)
        pi = out[..., 0].softmax(-1)
        mu = out[..., 1:3]
        sigma = F.softplus(out[..., 3:5]) + 1e-3
        return pi, mu, sigma


def example_inputs():
    return [(torch.randn(4, 16),)]
