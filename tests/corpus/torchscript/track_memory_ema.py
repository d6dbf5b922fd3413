# EXPECT: fails
"""Appearance memory that keeps an exponential moving average of track embeddings across calls."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, momentum: float = 0.8):
        super().__init__()
        self.momentum = momentum
        self.memory = None

    def forward(self, emb: torch.Tensor):
        emb = F.normalize(emb, dim=-1)
        if self.memory is None:
            self.memory = emb
        else:
            self.memory = self.momentum * self.memory + (1 - self.momentum) * emb
        return emb @ self.memory.T


def example_inputs():
    return [(torch.randn(4, 16),)]
