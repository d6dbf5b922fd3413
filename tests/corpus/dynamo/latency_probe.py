"""Perception: a backbone instrumented with wall-clock timing of its stages."""
import time

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stage1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU())
        self.stage2 = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.last_ms = 0.0

    def forward(self, x):
        start = time.perf_counter()  # BREAK: GB0007
        y = self.stage2(self.stage1(x))
        self.last_ms = (time.perf_counter() - start) * 1e3  # BREAK: GB0007
        return y


def inputs():
    return [(torch.randn(1, 3, 16, 16),), (torch.randn(1, 3, 16, 16),)]
