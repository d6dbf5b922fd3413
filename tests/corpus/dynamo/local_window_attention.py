"""Attention: non-overlapping window attention (Swin style, no shift)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, window=4, heads=2):
        super().__init__()
        self.window, self.heads = window, heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, H, W, C = x.shape
        w = self.window
        x = x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, C)
        q, k, v = self.qkv(x).reshape(x.shape[0], w * w, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * (C // self.heads) ** -0.5
        out = (att.softmax(-1) @ v).transpose(1, 2).reshape(-1, w * w, C)
        out = self.proj(out).view(B, H // w, W // w, w, w, C).permute(0, 1, 3, 2, 4, 5)
        return out.reshape(B, H, W, C)


def inputs():
    return [(torch.randn(1, 8, 8, 16),), (torch.randn(1, 8, 8, 16),)]
