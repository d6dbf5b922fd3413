# EXPECT: fails
"""Attention that tries the fused kernel and falls back to the math path."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 48)

    def forward(self, x: torch.Tensor):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        try:
            return F.scaled_dot_product_attention(q, k, v)
        except RuntimeError:
            att = (q @ k.transpose(-2, -1) / 4.0).softmax(-1)
            return att @ v


def example_inputs():
    return [(torch.randn(2, 5, 16),)]
