# EXPECT: fails
"""Token-id post-processing that strips special tokens kept in a set attribute."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.special_ids = {0, 1, 2}

    def forward(self, ids: torch.Tensor) -> List[int]:
        out: List[int] = []
        for t in ids.tolist():
            if t not in self.special_ids:
                out.append(t)
        return out


def example_inputs():
    return [(torch.tensor([1, 5, 6, 2, 7]),)]
