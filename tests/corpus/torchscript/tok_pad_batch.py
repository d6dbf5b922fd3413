# EXPECT: scripts
"""Collate variable-length token tensors into a padded batch plus attention mask."""
from typing import List, Tuple

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, pad_id: int = 0):
        super().__init__()
        self.pad_id = pad_id

    def forward(self, seqs: List[torch.Tensor]) -> Tuple[torch.Tensor, torch.Tensor]:
        max_len = max([s.shape[0] for s in seqs])
        batch = torch.full((len(seqs), max_len), self.pad_id, dtype=torch.long)
        mask = torch.zeros(len(seqs), max_len, dtype=torch.bool)
        for i, s in enumerate(seqs):
            batch[i, : s.shape[0]] = s
            mask[i, : s.shape[0]] = True
        return batch, mask


def example_inputs():
    return [([torch.tensor([5, 6, 7]), torch.tensor([8])],)]
