"""TorchScript stops at its first error: here the lambda in `Outer.forward`. The lambda in `Inner.forward`
and the unannotated float default of `Outer.forward` are only reached by the probe's isolated re-checks
(the failing method stubbed, the header scripted alone)."""

import torch
from torch import nn


class Inner(nn.Module):
    def forward(self, x):
        double = lambda t: t * 2
        return double(x)


class Outer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()

    def forward(self, x, gain=1.0):
        act = lambda t: t.clamp(min=0.0)
        return act(self.inner(x)) * gain


def make():
    torch.manual_seed(0)
    return Outer().eval(), [(torch.randn(2, 3),)]
