"""Regularisation: LayerDrop that decides with a random draw read back to Python."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, layers=3, p=0.2):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(layers)])
        self.p = p

    def forward(self, x):
        for layer in self.layers:
            if self.training and torch.rand(1).item() < self.p:  # BREAK: GB0124
                continue
            x = x + torch.relu(layer(x))
        return x


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
