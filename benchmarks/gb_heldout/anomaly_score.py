"""Anomaly scorer that checks for NaNs with torch.equal before returning."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.enc = nn.Linear(dim, 4)
        self.dec = nn.Linear(4, dim)

    def forward(self, x):
        rec = self.dec(self.enc(x))
        err = ((rec - x) ** 2).mean(-1)
        if not torch.equal(err, err):
            err = torch.zeros_like(err)
        return err


def inputs():
    return [(torch.randn(3, 8),), (torch.randn(3, 8),)]
