"""Preprocessing that guesses whether the image is 0..255 or 0..1 from its values."""
# EXPECT: diverges
import torch
from torch import nn


class AutoNormalize(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, img):
        if img.max() > 1.0:
            img = img / 255.0
        return (img - self.mean) / self.std


def make():
    torch.manual_seed(0)
    return AutoNormalize().eval(), [(torch.rand(1, 3, 4, 4) * 255,), (torch.rand(1, 3, 4, 4),)]
