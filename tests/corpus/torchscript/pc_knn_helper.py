# EXPECT: fails
"""DGCNN-style edge features built with a k-NN helper function."""
import torch
from torch import nn


def knn(x, k):
    inner = -2 * torch.matmul(x.transpose(2, 1), x)
    xx = (x ** 2).sum(dim=1, keepdim=True)
    pairwise = -xx - inner - xx.transpose(2, 1)
    return pairwise.topk(k=k, dim=-1)[1]


class Model(nn.Module):
    def __init__(self, k: int = 4):
        super().__init__()
        self.k = k
        self.conv = nn.Conv2d(6, 8, 1)

    def forward(self, x: torch.Tensor):
        idx = knn(x, self.k)
        B, C, N = x.shape
        feats = x.transpose(1, 2)
        neigh = feats[torch.arange(B).view(B, 1, 1), idx]
        edge = torch.cat([neigh - feats.unsqueeze(2), feats.unsqueeze(2).expand(-1, -1, self.k, -1)], dim=-1)
        return self.conv(edge.permute(0, 3, 1, 2)).max(-1)[0]


def example_inputs():
    return [(torch.randn(2, 3, 16),)]
