"""Attention whose head dim is configuration (math.sqrt of a config int): trace-safe."""
# EXPECT: stable
import math
import torch
from torch import nn


class ConfigAttention(nn.Module):
    def __init__(self, dim=8, heads=2, causal=False):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.causal = causal

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.qkv(x).view(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if self.causal:
            mask = torch.ones(n, n, dtype=torch.bool).triu(1)
            attn = attn.masked_fill(mask, float("-inf"))
        return (attn.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)


def make():
    torch.manual_seed(0)
    return ConfigAttention().eval(), [(torch.randn(1, 4, 8),), (torch.randn(3, 7, 8),)]
