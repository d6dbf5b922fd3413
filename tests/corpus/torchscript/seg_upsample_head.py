# EXPECT: scripts
"""Semantic segmentation head that upsamples logits to the input resolution."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, stride=4, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(8, 4, 1)

    def forward(self, img: torch.Tensor) -> torch.Tensor:
        h, w = img.shape[-2:]
        logits = self.classifier(self.backbone(img))
        return F.interpolate(logits, size=(h, w), mode="bilinear", align_corners=False)


def example_inputs():
    return [(torch.randn(1, 3, 32, 32),)]
