"""Audio: learnable filterbank frontend with log compression and per-channel normalisation."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, filters=16, kernel=33, stride=8):
        super().__init__()
        self.fb = nn.Conv1d(1, filters, kernel, stride=stride, padding=kernel // 2, bias=False)
        self.norm = nn.InstanceNorm1d(filters, affine=True)

    def forward(self, wav):
        x = self.fb(wav.unsqueeze(1)).abs()
        x = torch.log1p(x)
        return self.norm(x)


def inputs():
    return [(torch.randn(2, 400),), (torch.randn(2, 400),)]
