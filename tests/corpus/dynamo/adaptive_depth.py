"""Efficiency: early-exit network that runs as many blocks as a confidence estimate asks for."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8, max_blocks=6):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(dim, dim) for _ in range(max_blocks)])
        self.halt = nn.Linear(dim, 1)
        nn.init.constant_(self.halt.weight, 0.5)  # a trained halting head, fixed for a reproducible corpus
        nn.init.zeros_(self.halt.bias)

    def forward(self, x):
        depth = int(torch.sigmoid(self.halt(x)).mean().mul(len(self.blocks)).ceil().item())  # BREAK: GB0124
        for i in range(depth):
            x = x + torch.relu(self.blocks[i](x))
        return x


def inputs():
    # easy to hard requests: the halting head asks for 1, 2, 3, 5, 6 blocks
    return [(torch.full((3, 8), s),) for s in (-1.0, -0.3, 0.0, 0.3, 1.0)]
