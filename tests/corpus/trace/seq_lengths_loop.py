"""Sequence pooling: averages each sequence up to its length with a Python loop over the batch."""
# EXPECT: diverges
import torch
from torch import nn


class LengthPool(nn.Module):
    def forward(self, x, lengths):
        pooled = []
        for i in range(x.size(0)):
            n = int(lengths[i])
            pooled.append(x[i, :n].mean(0))
        return torch.stack(pooled)


def make():
    torch.manual_seed(0)
    return LengthPool().eval(), [(torch.randn(2, 6, 4), torch.tensor([3, 6])),
                                 (torch.randn(2, 6, 4), torch.tensor([5, 2]))]
