"""Modules whose torch.export failures name no line of the model (EX708 dataclass output, EX709
torch.autograd.grad, EX710 lazy module), for the probe's matching of such errors to findings."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class Detections:
    boxes: torch.Tensor
    scores: torch.Tensor


class DataclassHead(nn.Module):
    def forward(self, x):
        return Detections(x[:, :4], x[:, 4].sigmoid())


class PenaltyCritic(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.critic = nn.Linear(5, 1)

    def forward(self, x):
        with torch.enable_grad():  # the probe runs eager under no_grad
            x = x.detach().requires_grad_(True)
            score = self.critic(x).sum()
            (g,) = torch.autograd.grad(score, x, create_graph=True)
        return score, g.pow(2).sum()


class LazyEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.LazyLinear(3)

    def forward(self, x):
        return self.proj(x)


def _inputs():
    torch.manual_seed(0)
    return [(torch.randn(6, 5),), (torch.randn(3, 5),)]


def make_dataclass():
    return DataclassHead(), _inputs()


def make_penalty():
    return PenaltyCritic(), _inputs()


def make_lazy():
    return LazyEncoder(), _inputs()
