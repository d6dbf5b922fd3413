# EXPECT: fails
"""Task model that reuses the generic backbone forward of its base class."""
import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, padding=1)

    def forward(self, x):
        return self.stem(x).relu()


class Model(Backbone):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        feats = Backbone.forward(self, x)
        return self.head(feats)


def example_inputs():
    return [(torch.randn(1, 3, 16, 16),)]
