"""Lidar: counts occupied cells and returns them as Python ints per class."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.cls = nn.Conv2d(4, classes, 1)

    def forward(self, bev):
        label = self.cls(bev).argmax(1)
        counts = [int((label == c).sum()) for c in range(3)]  # BREAK: GB0124
        return label, counts


def inputs():
    return [(torch.randn(1, 4, 8, 8),), (torch.randn(1, 4, 8, 8),)]
