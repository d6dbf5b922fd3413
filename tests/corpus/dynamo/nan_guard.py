"""Perception: a guard that zeros the batch when the features contain NaNs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if torch.isnan(h).any():  # BREAK: GB0170
            h = torch.nan_to_num(h)
        return self.fc2(h)


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
