"""Reproducibility: dropout that reseeds the global RNG on every call."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, seed=1234):
        super().__init__()
        self.seed = seed
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        torch.manual_seed(self.seed)  # BREAK: GB0007
        return nn.functional.dropout(self.fc(x), p=0.2, training=True)


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
