# EXPECT: fails
"""Top-k proposal selection where the caller passes the number of proposals."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.objectness = nn.Conv2d(8, 1, 1)

    def forward(self, feat, num_proposals):
        obj = self.objectness(feat).flatten(1)
        scores, idx = obj.topk(num_proposals, dim=1)
        return scores.sigmoid(), idx


def example_inputs():
    return [(torch.randn(2, 8, 6, 6), 10)]
