"""Sinusoidal positional encoding computed from the sequence length (arange of a size)."""
# EXPECT: stable
import math
import torch
from torch import nn


class SinusoidalPE(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.dim = dim
        self.register_buffer("inv_freq", torch.exp(torch.arange(0, dim, 2).float() * (-math.log(10000.0) / dim)))

    def forward(self, x):
        pos = torch.arange(x.shape[1], dtype=torch.float32).unsqueeze(1)
        ang = pos * self.inv_freq
        pe = torch.stack([ang.sin(), ang.cos()], -1).flatten(1)
        return x + pe.unsqueeze(0)


def make():
    torch.manual_seed(0)
    return SinusoidalPE().eval(), [(torch.randn(2, 5, 8),), (torch.randn(1, 9, 8),)]
