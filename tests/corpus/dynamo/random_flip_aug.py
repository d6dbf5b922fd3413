"""Perception: GPU-side augmentation that flips with Python's random module."""
import random

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p
        self.stem = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        if random.random() < self.p:  # BREAK: GB0007
            x = torch.flip(x, dims=[-1])
        return self.stem(x)


def inputs():
    return [(torch.randn(2, 3, 16, 16),), (torch.randn(2, 3, 16, 16),)]
