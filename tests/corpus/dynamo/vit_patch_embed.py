"""Perception: ViT patch embedding with class token and learned position embedding."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, img=32, patch=8, dim=32):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, patch)
        n = (img // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        B = x.shape[0]
        tokens = self.proj(x).flatten(2).transpose(1, 2)
        cls = self.cls.expand(B, -1, -1)
        tokens = torch.cat([cls, tokens], dim=1) + self.pos
        return self.norm(tokens)


def inputs():
    return [(torch.randn(2, 3, 32, 32),), (torch.randn(2, 3, 32, 32),)]
