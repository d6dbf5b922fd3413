"""Attention: rotary position embeddings applied to queries and keys."""
import torch
import torch.nn as nn


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([-x2, x1], dim=-1)


class Model(nn.Module):
    def __init__(self, dim=16, base=10000.0):
        super().__init__()
        inv = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv)

    def forward(self, q, k):
        T = q.shape[-2]
        t = torch.arange(T, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat([freqs, freqs], dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        return (q @ k.transpose(-1, -2)).softmax(-1)


def inputs():
    return [(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16))] * 2
