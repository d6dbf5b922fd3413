# EXPECT: scripts
"""Classifier with label smoothing stats only in training, shape checks with x.dim()."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 3)
        self.calls = 0

    def forward(self, x):
        if x.dim() == 4:
            x = x.flatten(1)
        if self.training:
            self.calls += 1
        logits = self.fc(x)
        return logits.log_softmax(-1)


def example_inputs():
    return [(torch.randn(2, 3, 2, 2),)]
