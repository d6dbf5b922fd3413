"""Splits a packed batch of tokens back into sequences using a lengths tensor, then pools each."""
# EXPECT: diverges
import torch
from torch import nn


class SplitPool(nn.Module):
    def forward(self, tokens, lengths):
        chunks = torch.split(tokens, lengths.tolist())
        return torch.stack([c.mean(0) for c in chunks])


def make():
    torch.manual_seed(0)
    return SplitPool().eval(), [(torch.randn(6, 4), torch.tensor([2, 4])), (torch.randn(6, 4), torch.tensor([5, 1]))]
