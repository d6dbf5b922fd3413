"""MoE: re-route when some expert received no tokens (data-dependent branch)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, experts=4):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = experts

    def forward(self, x):
        logits = self.gate(x)
        counts = torch.bincount(logits.argmax(-1), minlength=self.experts)  # BREAK: GB0036
        if (counts == 0).any():  # BREAK: GB0170
            logits = logits + 0.01 * torch.randn_like(logits)
        return logits.softmax(-1)


def inputs():
    return [(torch.randn(6, 16),), (torch.randn(6, 16),)]
