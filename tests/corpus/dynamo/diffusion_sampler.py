"""Diffusion: a DDIM-like sampler whose number of denoising steps is chosen per request."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.eps = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))

    def forward(self, x, num_steps: int = 10):
        for i in range(num_steps):
            t = torch.full((x.shape[0], 1), 1.0 - i / num_steps)
            x = x - 0.1 * self.eps(torch.cat([x, t], dim=-1))
        return x


def inputs():
    return [(torch.randn(2, 8), n) for n in (4, 5, 6, 8, 10)]
