"""ViT token pruning: keep the top tokens by CLS attention, then gather."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16, keep=0.5):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.keep = keep

    def forward(self, tokens):
        s = self.score(tokens).squeeze(-1)
        k = max(1, int(tokens.shape[1] * self.keep))
        idx = s.topk(k, dim=1).indices
        return torch.gather(tokens, 1, idx.unsqueeze(-1).expand(-1, -1, tokens.shape[-1]))


def inputs():
    return [(torch.randn(2, 8, 16),), (torch.randn(2, 8, 16),)]
