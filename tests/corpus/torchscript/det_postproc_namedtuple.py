# EXPECT: scripts
"""Same structured output as a typing.NamedTuple (the TorchScript-friendly spelling)."""
from typing import NamedTuple

import torch
from torch import nn


class Detections(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor
    labels: torch.Tensor


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 4 + 3)

    def forward(self, feats: torch.Tensor) -> Detections:
        out = self.head(feats)
        probs = out[:, 4:].softmax(-1)
        scores, labels = probs.max(-1)
        return Detections(out[:, :4], scores, labels)


def example_inputs():
    return [(torch.randn(12, 8),)]
