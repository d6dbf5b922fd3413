# EXPECT: fails
"""Detector that returns a structured output object, as in many internal codebases."""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor
    labels: torch.Tensor


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4 + 3)

    def forward(self, feats: torch.Tensor):
        out = self.head(feats)
        probs = out[:, 4:].softmax(-1)
        scores, labels = probs.max(-1)
        return Detections(out[:, :4], scores, labels)


def example_inputs():
    return [(torch.randn(12, 8),)]
