"""Perception: squeeze-and-excitation channel attention."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ch=16, r=4):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(ch, ch // r), nn.ReLU(inplace=True), nn.Linear(ch // r, ch), nn.Sigmoid())

    def forward(self, x):
        b, c, _, _ = x.shape
        w = self.fc(x.mean(dim=(2, 3))).view(b, c, 1, 1)
        return x * w


def inputs():
    return [(torch.randn(2, 16, 8, 8),), (torch.randn(2, 16, 8, 8),)]
