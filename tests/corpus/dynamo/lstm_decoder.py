"""Sequence: LSTM trajectory decoder (forecasting)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=8, hidden=16):
        super().__init__()
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 2)

    def forward(self, seq):
        h, _ = self.lstm(seq)  # BREAK: GB0014
        return self.out(h[:, -1])


def inputs():
    return [(torch.randn(2, 5, 8),), (torch.randn(2, 5, 8),)]
