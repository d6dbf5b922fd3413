# EXPECT: fails
"""Group points per batch element and report per-cloud point counts."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def forward(self, points: torch.Tensor, batch_idx: torch.Tensor):
        counts = []
        clouds: List[torch.Tensor] = []
        for b in range(int(batch_idx.max()) + 1):
            sel = points[batch_idx == b]
            clouds.append(sel.mean(0))
            counts.append(sel.shape[0])
        return torch.stack(clouds), counts


def example_inputs():
    return [(torch.randn(12, 3), torch.tensor([0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 2]))]
