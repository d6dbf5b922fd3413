"""Class-balanced loss: per-class counts in the batch re-weight the cross-entropy."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=8, classes=4):
        super().__init__()
        self.fc = nn.Linear(dim, classes)
        self.classes = classes

    def forward(self, x, y):
        logits = self.fc(x)
        counts = torch.bincount(y, minlength=self.classes).float()
        weights = (counts.sum() / counts.clamp(min=1)).detach()
        return F.cross_entropy(logits, y, weight=weights)


def inputs():
    y = torch.tensor([0, 1, 1, 3])
    return [(torch.randn(4, 8), y), (torch.randn(4, 8), y)]
