"""MoE: router that prints how many tokens each expert received."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, experts=4):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = experts

    def forward(self, x):
        idx = self.gate(x).argmax(-1)
        counts = torch.bincount(idx, minlength=self.experts)  # BREAK: GB0036
        print(f"tokens per expert: {counts}")  # BREAK: GB0059
        return idx


def inputs():
    return [(torch.randn(10, 16),), (torch.randn(10, 16),)]
