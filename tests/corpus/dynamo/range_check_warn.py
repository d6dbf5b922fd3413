"""Perception: input range validation that warns when images look un-normalised."""
import warnings

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.GELU())

    def forward(self, x):
        warnings.warn("Model received raw images; normalise them in the dataloader")  # BREAK: GB0007
        return self.enc(x)


def inputs():
    return [(torch.rand(1, 3, 16, 16),), (torch.rand(1, 3, 16, 16),)]
