# EXPECT: scripts
"""ReID embedding head with cosine-similarity cost matrix."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))

    def forward(self, track_feats: torch.Tensor, det_feats: torch.Tensor):
        a = F.normalize(self.proj(track_feats), dim=-1)
        b = F.normalize(self.proj(det_feats), dim=-1)
        return 1.0 - a @ b.t()


def example_inputs():
    return [(torch.randn(3, 32), torch.randn(5, 32))]
