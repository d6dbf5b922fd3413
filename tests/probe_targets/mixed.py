"""A model whose problems the static rules only partly predict: a lambda (TS101, TorchScript fails there),
a print() and a break inside a loop (graph breaks no rule of this branch predicts: runtime-only), a branch
on a tensor value that only some inputs take, and a helper no input set ever reaches (not exercised)."""

import torch
from torch import nn


class Mixed(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        act = lambda t: t.clamp(min=0)
        y = act(self.proj(x))
        print("batch", y.shape[0])
        for _ in range(2):
            y = y + y.sum().item()
        if x.shape[0] > 100:
            return self.never(y)
        return y

    def never(self, y):
        return y * y.max().item()


def make():
    torch.manual_seed(0)
    return Mixed().eval(), [(torch.randn(2, 4),), (torch.randn(3, 4),)]
