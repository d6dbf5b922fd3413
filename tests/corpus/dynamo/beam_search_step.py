"""Sequence: one beam-search expansion step that keeps hypotheses as Python lists."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, vocab=20, dim=8, beams=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)
        self.beams = beams

    def forward(self, tokens, scores):
        logp = self.out(self.emb(tokens)).log_softmax(-1) + scores[:, None]
        top, idx = logp.flatten().topk(self.beams)
        hyps = []
        for flat in idx.tolist():  # BREAK: GB0033
            hyps.append((flat // logp.shape[1], flat % logp.shape[1]))
        return top, hyps


def inputs():
    # successive decoding steps: new beam tokens and scores each step
    return [(torch.tensor(t), -torch.rand(3)) for t in ([1, 4, 7], [2, 4, 9], [5, 11, 3])]
