"""Few-step sampler: the loop stops early when the update gets small."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8, steps=4):
        super().__init__()
        self.eps = nn.Linear(dim, dim)
        self.steps = steps

    def forward(self, x):
        for t in range(self.steps):
            update = self.eps(x) * 0.1
            x = x - update
            if update.abs().max() < 1e-4:
                break
        return x


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
