"""Greedy decoder that stops generating when every sequence has produced the end token."""
# EXPECT: diverges
import torch
from torch import nn


class GreedyDecoder(nn.Module):
    def __init__(self, vocab=5, eos=0, max_len=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, 8)
        self.out = nn.Linear(8, vocab)
        self.eos = eos
        self.max_len = max_len

    def forward(self, start):
        tok = start
        done = torch.zeros_like(start, dtype=torch.bool)
        steps = []
        for _ in range(self.max_len):
            tok = self.out(self.emb(tok)).argmax(-1)
            steps.append(tok)
            done = done | (tok == self.eos)
            if done.all():
                break
        return torch.stack(steps, 1)


def make():
    torch.manual_seed(1)
    return GreedyDecoder().eval(), [(torch.tensor([1, 2]),), (torch.tensor([3, 4]),), (torch.tensor([0, 1]),)]
