"""Masked mean pooling from lengths with a broadcast comparison (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class MaskedMeanPool(nn.Module):
    def forward(self, x, lengths):
        steps = torch.arange(x.shape[1]).unsqueeze(0)
        mask = (steps < lengths.unsqueeze(1)).unsqueeze(-1).to(x.dtype)
        return (x * mask).sum(1) / mask.sum(1).clamp(min=1)


def make():
    torch.manual_seed(0)
    return MaskedMeanPool().eval(), [(torch.randn(2, 6, 4), torch.tensor([3, 6])),
                                     (torch.randn(3, 9, 4), torch.tensor([5, 2, 9]))]
