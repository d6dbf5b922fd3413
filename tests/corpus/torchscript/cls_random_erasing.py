# EXPECT: fails
"""Classifier with built-in test-time random erasing augmentation."""
import random

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 4))
        self.p = 0.5

    def forward(self, x: torch.Tensor):
        if random.random() < self.p:
            x = x.clone()
            x[..., 2:5, 2:5] = 0.0
        return self.net(x)


def example_inputs():
    return [(torch.randn(2, 3, 8, 8),)]
