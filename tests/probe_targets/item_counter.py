"""A model with a known `.item()` graph break and a Python-int call counter (recompiles on every call),
and its fixed twin (0-d tensor scale, counter in a buffer): zero breaks, zero recompiles."""

import torch
from torch import nn


class Unfixed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        y = self.proj(x)
        scale = y.abs().max().item()
        return y / scale * self.calls


class Fixed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.register_buffer("calls", torch.zeros(()))

    def forward(self, x):
        self.calls += 1
        y = self.proj(x)
        scale = y.abs().max()
        return y / scale * self.calls


def _inputs():
    torch.manual_seed(0)
    return [(torch.randn(4, 8),), (torch.randn(4, 8),), (torch.randn(4, 8),)]


def make_unfixed():
    torch.manual_seed(0)
    return Unfixed().eval(), _inputs()


def make_fixed():
    torch.manual_seed(0)
    return {"model": Fixed().eval(), "inputs": _inputs()}
