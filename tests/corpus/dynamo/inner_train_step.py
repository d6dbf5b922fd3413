"""Meta-learning: an inner adaptation step that calls backward inside forward."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 1)

    def forward(self, x, y):
        loss = ((self.lin(x) - y) ** 2).mean()
        loss.backward()  # BREAK: GB0123
        return loss.detach()


def inputs():
    return [(torch.randn(8, 4), torch.randn(8, 1))] * 2
