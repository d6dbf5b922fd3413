"""Perception: per-image input normalisation that reads statistics back to Python."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.eps = 1e-6

    def forward(self, img):
        mean = img.mean().item()  # BREAK: GB0124
        std = img.std().item()  # BREAK: GB0124
        img = (img - mean) / (std + self.eps)
        return self.backbone(img).flatten(1)


def inputs():
    return [(torch.rand(2, 3, 16, 16),), (torch.rand(2, 3, 16, 16),)]
