# EXPECT: fails
"""Conv block whose activation is configurable and stored as a callable attribute."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, act: str = "swish"):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        if act == "swish":
            self.act = lambda t: t * torch.sigmoid(t)
        else:
            self.act = lambda t: t.clamp(min=0)

    def forward(self, x):
        return self.act(self.conv(x))


def example_inputs():
    return [(torch.randn(1, 4, 6, 6),)]
