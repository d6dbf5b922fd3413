"""Attention: padding-mask attention that asserts every sequence has a valid token."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask):
        valid = mask.sum(-1)
        if bool((valid == 0).any()):  # BREAK: GB0124
            raise ValueError("empty sequence in batch")
        q, k, v = self.qkv(x).chunk(3, -1)
        att = (q @ k.transpose(-1, -2)).masked_fill(~mask[:, None, :], -1e9).softmax(-1)
        return att @ v


def inputs():
    return [(torch.randn(2, 5, 16), torch.ones(2, 5, dtype=torch.bool))] * 2
