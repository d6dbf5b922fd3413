"""Detection: rank per-image detections with Python's sorted() before formatting results."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(16, 5)

    def forward(self, feats):
        dets = list(self.head(feats).unbind(0))
        dets = sorted(dets, key=lambda d: d[4])  # BREAK: GB0207
        return torch.stack(dets)


def inputs():
    return [(torch.randn(6, 16),), (torch.randn(6, 16),)]
