"""Speculative decoding acceptance: count accepted draft tokens and truncate."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab=6, dim=8):
        super().__init__()
        self.lm = nn.Linear(dim, vocab)

    def forward(self, h, draft):
        probs = self.lm(h).softmax(-1)
        p = probs.gather(-1, draft.unsqueeze(-1)).squeeze(-1)
        accepted = (p > 0.1).long().cumprod(-1).sum(-1)
        n = int(accepted.min())
        return draft[:, :n]


def inputs():
    d = torch.tensor([[1, 2, 3], [0, 4, 5]])
    return [(torch.randn(2, 3, 8), d), (torch.randn(2, 3, 8), d)]
