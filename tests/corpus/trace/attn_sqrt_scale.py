"""Multi-head attention with the scale computed by math.sqrt of the head dimension read from the input."""
# EXPECT: diverges
import math
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, heads=2):
        super().__init__()
        self.heads = heads

    def forward(self, q, k, v):
        b, n, d = q.shape
        hd = d // self.heads
        q = q.view(b, n, self.heads, hd).transpose(1, 2)
        k = k.view(b, -1, self.heads, hd).transpose(1, 2)
        v = v.view(b, -1, self.heads, hd).transpose(1, 2)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(hd)
        return (attn.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d)


def make():
    torch.manual_seed(0)
    a = [torch.randn(1, 3, 8) for _ in range(3)]
    b = [torch.randn(2, 5, 16) for _ in range(3)]
    return Attention().eval(), [tuple(a), tuple(b)]
