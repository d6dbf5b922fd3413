# EXPECT: fails
"""Segmentation decoder with deep supervision: extra side outputs only when asked for."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dec1 = nn.Conv2d(8, 8, 3, padding=1)
        self.dec2 = nn.Conv2d(8, 8, 3, padding=1)
        self.out = nn.Conv2d(8, 2, 1)
        self.side = nn.Conv2d(8, 2, 1)
        self.deep_supervision = False

    def forward(self, x):
        d1 = self.dec1(x).relu()
        d2 = self.dec2(d1).relu()
        logits = self.out(d2)
        if self.deep_supervision:
            return logits, self.side(d1), self.side(d2)
        return logits, self.side(d2)


def example_inputs():
    return [(torch.randn(1, 8, 8, 8),)]
