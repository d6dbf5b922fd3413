"""Serving: attaches a checksum of the input bytes for request deduplication."""
import zlib

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(8, 2)

    def forward(self, x):
        tag = zlib.crc32(b"model-v3")  # BREAK: GB0007
        return self.head(x), tag


def inputs():
    return [(torch.randn(2, 8),), (torch.randn(2, 8),)]
