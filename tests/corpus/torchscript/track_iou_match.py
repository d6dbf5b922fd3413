# EXPECT: fails
"""Greedy IoU association between tracks and detections, returning track index -> detection index."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.min_iou = 0.3

    def forward(self, iou: torch.Tensor):
        matches = {}
        used = torch.zeros(iou.shape[1], dtype=torch.bool)
        for t in range(iou.shape[0]):
            row = iou[t].masked_fill(used, -1.0)
            best = int(row.argmax())
            if float(row[best]) > self.min_iou:
                matches[t] = best
                used[best] = True
        return matches


def example_inputs():
    return [(torch.rand(4, 6),)]
