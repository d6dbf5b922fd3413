"""Perception: skip the refinement stage when the coarse prediction is already confident."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.coarse = nn.Linear(16, 4)
        self.refine = nn.Linear(20, 4)

    def forward(self, x):
        logits = self.coarse(x)
        confidence = float(logits.softmax(-1).max(-1).values.mean())  # BREAK: GB0124
        if confidence > 0.9:
            return logits
        return self.refine(torch.cat([x, logits], -1))


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
