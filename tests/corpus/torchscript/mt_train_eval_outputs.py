# EXPECT: fails
"""Multi-task model that returns a dict of all heads in training and only the main head in eval."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Linear(8, 16)
        self.main = nn.Linear(16, 3)
        self.aux = nn.Linear(16, 2)

    def forward(self, x):
        h = self.backbone(x).relu()
        main = self.main(h)
        if self.training:
            return {"main": main, "aux": self.aux(h)}
        return main


def example_inputs():
    return [(torch.randn(2, 8),)]
