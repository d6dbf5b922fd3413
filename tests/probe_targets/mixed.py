"""Problems the rules may only partly predict: a lambda (TorchScript fails there), a print() (GB0059), an
`.item()` in a loop on a lambda's output (GB0124: Dynamo skips the whole frame), a shape branch, and a
helper no input set reaches (not exercised)."""

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
