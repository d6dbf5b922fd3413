# EXPECT: scripts
"""Token + learned position embeddings with an offset for cached decoding."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(100, 16)
        self.pos = nn.Embedding(64, 16)

    def forward(self, ids: torch.Tensor, past_len: int = 0):
        positions = torch.arange(past_len, past_len + ids.shape[1]).unsqueeze(0)
        return self.tok(ids) + self.pos(positions)


def example_inputs():
    return [(torch.randint(0, 100, (2, 7)),), (torch.randint(0, 100, (2, 3)), 5)]
