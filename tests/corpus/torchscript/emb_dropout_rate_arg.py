# EXPECT: fails
"""Embedding with a per-call dropout rate passed by the training loop."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)

    def forward(self, ids, rate):
        return F.dropout(self.emb(ids), p=rate, training=self.training)


def example_inputs():
    return [(torch.randint(0, 50, (2, 4)), 0.1)]
