"""Attention: grouped-query attention with key/value heads repeated to match query heads."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=32, q_heads=4, kv_heads=2):
        super().__init__()
        self.hd = dim // q_heads
        self.qh, self.kvh = q_heads, kv_heads
        self.wq = nn.Linear(dim, q_heads * self.hd, bias=False)
        self.wkv = nn.Linear(dim, 2 * kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(q_heads * self.hd, dim, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q = self.wq(x).view(B, T, self.qh, self.hd).transpose(1, 2)
        k, v = self.wkv(x).view(B, T, 2, self.kvh, self.hd).permute(2, 0, 3, 1, 4)
        rep = self.qh // self.kvh
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(out.transpose(1, 2).reshape(B, T, -1))


def inputs():
    return [(torch.randn(2, 6, 32),), (torch.randn(2, 6, 32),)]
