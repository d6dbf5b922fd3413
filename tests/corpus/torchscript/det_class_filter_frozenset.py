# EXPECT: fails
"""Detector postprocess that drops classes listed in a config (stored as a frozenset)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, ignored=(3, 7)):
        super().__init__()
        self.ignored_classes = frozenset(ignored)
        self.num_classes = 10

    def forward(self, logits: torch.Tensor):
        probs = logits.softmax(-1)
        for c in range(self.num_classes):
            if c in self.ignored_classes:
                probs[:, c] = 0.0
        return probs.argmax(-1)


def example_inputs():
    return [(torch.randn(6, 10),)]
