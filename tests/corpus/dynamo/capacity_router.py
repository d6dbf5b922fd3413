"""MoE: Switch-style router with expert capacity computed from the token count."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=16, experts=4, capacity_factor=1.25):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = experts
        self.capacity_factor = capacity_factor

    def forward(self, x):
        tokens = x.shape[0]
        capacity = int(tokens * self.capacity_factor / self.experts)
        probs = self.gate(x).softmax(-1)
        gate, idx = probs.max(-1)
        mask = F.one_hot(idx, self.experts)
        position = torch.cumsum(mask, dim=0) * mask
        keep = (position <= capacity) & (position > 0)
        return gate.unsqueeze(-1) * keep.float(), capacity


def inputs():
    return [(torch.randn(16, 16),), (torch.randn(16, 16),)]
