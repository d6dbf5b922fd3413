"""Normalises class scores by the best score found with Python's builtin max() over the tensor."""
# EXPECT: diverges
import torch
from torch import nn


class BuiltinMaxNorm(nn.Module):
    def forward(self, scores):
        best = max(scores)
        return scores / best


def make():
    return BuiltinMaxNorm().eval(), [(torch.tensor([0.2, 0.8, 0.4]),), (torch.tensor([0.1, 0.3, 0.6]),)]
