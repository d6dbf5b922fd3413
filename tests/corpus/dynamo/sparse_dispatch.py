"""MoE: sparse dispatch that gathers each expert's tokens with a boolean mask."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, experts=3):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])

    def forward(self, x):
        choice = self.gate(x).argmax(-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            sel = choice == e
            out[sel] = expert(x[sel])  # BREAK: GB0036
        return out


def inputs():
    return [(torch.randn(12, 16),), (torch.randn(12, 16),)]
