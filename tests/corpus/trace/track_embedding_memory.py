"""Re-ID tracker that keeps the last frame's embeddings on the module between calls."""
# EXPECT: diverges
import torch
from torch import nn


class EmbeddingMemory(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)
        self.memory = None

    def forward(self, feats):
        emb = nn.functional.normalize(self.proj(feats), dim=-1)
        ref = emb if self.memory is None else self.memory
        sim = emb @ ref.T
        self.memory = emb.detach()
        return sim


def make():
    torch.manual_seed(0)
    return EmbeddingMemory().eval(), [(torch.randn(3, 8),), (torch.randn(3, 8),), (torch.randn(3, 8),)]
