"""Regularisation: ConvNeXt-style block with stochastic depth keyed on self.training."""
import torch
import torch.nn as nn


class DropPath(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = torch.rand(x.shape[0], 1, 1, 1) > self.p
        return x * keep / (1 - self.p)


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.GroupNorm(1, dim)
        self.pw = nn.Sequential(nn.Conv2d(dim, 4 * dim, 1), nn.GELU(), nn.Conv2d(4 * dim, dim, 1))
        self.drop = DropPath(0.1)

    def forward(self, x):
        return x + self.drop(self.pw(self.norm(self.dw(x))))


def inputs():
    return [(torch.randn(2, 16, 8, 8),), (torch.randn(2, 16, 8, 8),)]
