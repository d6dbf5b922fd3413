# EXPECT: scripts
"""Greedy CTC decoding for an OCR head: collapse repeats, drop blanks, map to characters."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.alphabet = "-0123456789abcdef"
        self.head = nn.Linear(8, len(self.alphabet))

    def forward(self, feats: torch.Tensor) -> List[str]:
        best = self.head(feats).argmax(-1)
        texts: List[str] = []
        for b in range(best.shape[0]):
            prev = 0
            chars: List[str] = []
            for t in range(best.shape[1]):
                c = int(best[b, t])
                if c != prev and c != 0:
                    chars.append(self.alphabet[c])
                prev = c
            texts.append("".join(chars))
        return texts


def example_inputs():
    return [(torch.randn(2, 10, 8),)]
