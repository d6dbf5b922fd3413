# EXPECT: scripts
"""Scaled dot-product attention block with an optional additive mask."""
import math
from typing import Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x: torch.Tensor, attn_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        att = (q @ k.transpose(-2, -1)) * self.scale
        if attn_mask is not None:
            att = att + attn_mask
        return att.softmax(-1) @ v


def example_inputs():
    return [(torch.randn(2, 5, 16),), (torch.randn(2, 5, 16), torch.zeros(5, 5))]
