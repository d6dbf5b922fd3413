"""Control: action-chunking head that emits a chunk of future actions from a latent."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, chunk=8, act=6, dim=32):
        super().__init__()
        self.queries = nn.Parameter(torch.randn(chunk, dim) * 0.02)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.out = nn.Linear(dim, act)

    def forward(self, latent):
        q = self.queries.unsqueeze(0).expand(latent.shape[0], -1, -1)
        h, _ = self.attn(q, latent, latent, need_weights=False)
        return self.out(h)


def inputs():
    return [(torch.randn(2, 10, 32),), (torch.randn(2, 10, 32),)]
