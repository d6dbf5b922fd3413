"""Detection head: per-level box regression with an anchor-free decode and score threshold."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ch=8, classes=3, thresh=0.3):
        super().__init__()
        self.cls = nn.Conv2d(ch, classes, 3, padding=1)
        self.reg = nn.Conv2d(ch, 4, 3, padding=1)
        self.thresh = thresh

    def forward(self, feat):
        scores = self.cls(feat).sigmoid().flatten(2).transpose(1, 2)
        boxes = self.reg(feat).flatten(2).transpose(1, 2)
        best, labels = scores.max(-1)
        keep = best > self.thresh
        return boxes[keep], labels[keep], best[keep]


def inputs():
    return [(torch.randn(1, 8, 6, 6),), (torch.randn(1, 8, 6, 6),)]
