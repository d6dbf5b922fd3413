"""Sequence: greedy decoder that stops when every sequence emitted the end token."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab=12, dim=8, max_len=5, eos=0):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.cell = nn.GRUCell(dim, dim)
        self.out = nn.Linear(dim, vocab)
        self.max_len, self.eos = max_len, eos

    def forward(self, tok, h):
        outs = []
        for _ in range(self.max_len):
            h = self.cell(self.emb(tok), h)
            tok = self.out(h).argmax(-1)
            outs.append(tok)
            if (tok == self.eos).all():  # BREAK: GB0170
                break
        return torch.stack(outs, 1)


def inputs():
    return [(torch.tensor([3, 5]), torch.zeros(2, 8))] * 2
