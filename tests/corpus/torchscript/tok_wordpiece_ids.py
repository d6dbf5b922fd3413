# EXPECT: fails
"""Greedy longest-match wordpiece encoder over a small vocab."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.vocab = {"[UNK]": 0, "play": 1, "##ing": 2, "##ed": 3, "run": 4, "##s": 5}

    def forward(self, words: List[str]) -> torch.Tensor:
        ids = []
        for w in words:
            start = 0
            while start < len(w):
                end = len(w)
                piece_id = -1
                while end > start:
                    piece = w[start:end] if start == 0 else "##" + w[start:end]
                    if piece in self.vocab:
                        piece_id = self.vocab[piece]
                        break
                    end -= 1
                if piece_id < 0:
                    ids.append(self.vocab["[UNK]"])
                    break
                ids.append(piece_id)
                start = end
        return torch.tensor(ids)


def example_inputs():
    return [(["playing", "runs", "xyz"],)]
