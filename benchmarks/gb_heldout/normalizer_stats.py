"""Running-statistics normalizer that warns when variance collapses."""
import warnings

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))

    def forward(self, x):
        var = x.var(0, unbiased=False)
        if (var < 1e-6).any():
            warnings.warn("collapsed feature variance")
        return (x - self.mean) / (self.var + 1e-5).sqrt()


def inputs():
    return [(torch.randn(4, 8),), (torch.randn(4, 8),)]
