"""Semantic segmentation head: upsamples logits to the input size and takes argmax (trace-safe)."""
# EXPECT: stable
import torch
import torch.nn.functional as F
from torch import nn


class SegHead(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.cls = nn.Conv2d(4, classes, 1)

    def forward(self, feat, image):
        logits = self.cls(feat)
        if logits.dim() == 4:
            logits = F.interpolate(logits, size=image.shape[-2:], mode="bilinear", align_corners=False)
        return logits.argmax(1)


def make():
    torch.manual_seed(0)
    return SegHead().eval(), [(torch.randn(1, 4, 4, 4), torch.randn(1, 3, 16, 16)),
                              (torch.randn(2, 4, 6, 8), torch.randn(2, 3, 24, 32))]
