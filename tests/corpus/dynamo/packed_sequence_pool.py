"""Sequence: mean-pool each sequence of a packed batch using its length."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, tokens, lengths):
        h = self.proj(tokens)
        out = []
        start = 0
        for n in lengths.tolist():  # BREAK: GB0033
            out.append(h[start:start + n].mean(0))
            start += n
        return torch.stack(out)


def inputs():
    return [(torch.randn(12, 8), torch.tensor(l)) for l in ([4, 8], [6, 6], [3, 9], [5, 7], [2, 10])]
