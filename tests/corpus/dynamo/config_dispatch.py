"""Perception: activation and normalisation chosen from a config string at construction."""
import torch
import torch.nn as nn

ACTS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU}


class Model(nn.Module):
    def __init__(self, act="gelu", norm="layer", dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = ACTS[act]()
        self.norm_kind = norm
        self.norm = nn.LayerNorm(dim) if norm == "layer" else nn.BatchNorm1d(dim)

    def forward(self, x):
        h = self.act(self.fc(x))
        if self.norm_kind == "layer":
            return self.norm(h)
        return self.norm(h.transpose(0, 1)).transpose(0, 1)


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
