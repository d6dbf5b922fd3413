"""Reproducible dropout: reseeds the global RNG from a step counter each call."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, p=0.2):
        super().__init__()
        self.p = p
        self.drop = nn.Dropout(p)

    def forward(self, x):
        torch.manual_seed(1234)
        return self.drop(x) * 2


def inputs():
    return [(torch.randn(4, 4),), (torch.randn(4, 4),)]
