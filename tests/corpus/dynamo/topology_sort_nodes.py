"""Graphs: orders node embeddings by a learned score with Python's sorted()."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(6, 1)

    def forward(self, nodes):
        s = self.score(nodes).squeeze(-1)
        order = sorted(range(nodes.shape[0]), key=lambda i: s[i])  # BREAK: GB0207
        return nodes[torch.tensor(order)]


def inputs():
    return [(torch.randn(5, 6),), (torch.randn(5, 6),)]
