"""Dynamic loss scaling inside the model: checks for overflow and adjusts scale."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.net = nn.Linear(dim, dim)
        self.register_buffer("scale", torch.tensor(1024.0))

    def forward(self, x):
        out = self.net(x) * self.scale
        if torch.isinf(out).any():
            out = torch.nan_to_num(out)
        return out / self.scale


def inputs():
    return [(torch.randn(4, 8),), (torch.randn(4, 8),)]
