"""Mixture-of-experts routing: tokens gathered per expert with nonzero, skipping empty experts."""
# EXPECT: diverges
import torch
from torch import nn


class TopOneMoE(nn.Module):
    def __init__(self, dim=4, experts=3):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(experts)])

    def forward(self, x):
        assign = self.gate(x).argmax(-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            idx = torch.nonzero(assign == e).squeeze(1)
            if idx.numel() == 0:
                continue
            out[idx] = expert(x[idx])
        return out


def make():
    torch.manual_seed(0)
    m = TopOneMoE().eval()
    return m, [(torch.randn(6, 4),), (torch.randn(6, 4) * 3,), (torch.randn(9, 4),)]
