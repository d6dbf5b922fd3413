# EXPECT: fails
"""PSP-style network with an auxiliary classifier used only during training."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.cls = nn.Conv2d(8, 3, 1)
        self.aux = nn.Conv2d(8, 3, 1)

    def forward(self, x):
        f = self.enc(x).relu()
        out = self.cls(f)
        if self.training:
            return out, self.aux(f)
        return out


def example_inputs():
    return [(torch.randn(1, 3, 8, 8),)]
