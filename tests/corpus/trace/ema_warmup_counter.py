"""Feature smoother with a warm-up counter kept as a Python int on the module."""
# EXPECT: diverges
import torch
from torch import nn


class WarmupSmoother(nn.Module):
    def __init__(self, warmup=2):
        super().__init__()
        self.warmup = warmup
        self.seen = 0

    def forward(self, x):
        self.seen += 1
        alpha = min(1.0, self.seen / self.warmup)
        return x * alpha


def make():
    return WarmupSmoother().eval(), [(torch.ones(2, 3),), (torch.ones(2, 3),), (torch.ones(2, 3),)]
