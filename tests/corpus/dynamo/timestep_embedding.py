"""Diffusion: sinusoidal timestep embedding followed by an MLP."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, dim))

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        return self.mlp(emb)


def inputs():
    return [(torch.randint(0, 1000, (4,)),), (torch.randint(0, 1000, (4,)),)]
