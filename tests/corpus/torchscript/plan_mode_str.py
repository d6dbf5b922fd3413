# EXPECT: scripts
"""Planner head with a decoding mode switch passed as an annotated string."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.logits = nn.Linear(16, 6)

    def forward(self, feat: torch.Tensor, mode: str = "greedy"):
        logits = self.logits(feat)
        if mode == "greedy":
            return logits.argmax(-1)
        return torch.multinomial(logits.softmax(-1), 1).squeeze(-1)


def example_inputs():
    return [(torch.randn(3, 16),), (torch.randn(3, 16), "sample")]
