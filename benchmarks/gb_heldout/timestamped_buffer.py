"""Replay-buffer style module that stamps each batch with wall-clock time."""
import datetime

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.enc = nn.Linear(dim, dim)
        self.stamps = []

    def forward(self, x):
        z = self.enc(x)
        self.stamps.append(datetime.datetime.now().isoformat())
        return z.tanh()


def inputs():
    return [(torch.randn(2, 4),), (torch.randn(2, 4),)]
