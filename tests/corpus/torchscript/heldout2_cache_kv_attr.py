# EXPECT: scripts
"""Decoder layer with a key/value cache kept on the module between generation steps."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.kv = nn.Linear(8, 16)
        self.k_cache = torch.zeros(0)
        self.v_cache = torch.zeros(0)

    def forward(self, x: torch.Tensor):
        k, v = self.kv(x).chunk(2, -1)
        if self.k_cache.numel() > 0:
            k = torch.cat([self.k_cache, k], 0)
            v = torch.cat([self.v_cache, v], 0)
        self.k_cache = k
        self.v_cache = v
        att = (x @ k.t()).softmax(-1)
        return att @ v


def example_inputs():
    return [(torch.randn(3, 8),)]
