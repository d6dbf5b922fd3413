# EXPECT: scripts
"""Character-level tokenizer as a scriptable module (vocab dict attribute, list-of-str input)."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        chars = "abcdefghijklmnopqrstuvwxyz "
        self.vocab = {c: i + 2 for i, c in enumerate(chars)}
        self.unk = 1
        self.pad = 0

    def forward(self, texts: List[str]) -> torch.Tensor:
        max_len = 0
        for t in texts:
            max_len = max(max_len, len(t))
        out = torch.full((len(texts), max_len), self.pad, dtype=torch.long)
        for i, t in enumerate(texts):
            for j, ch in enumerate(t):
                out[i, j] = self.vocab.get(ch, self.unk)
        return out


def example_inputs():
    return [(["hello world", "abc"],)]
