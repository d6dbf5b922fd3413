# EXPECT: scripts
"""ViT patch embedding that checks the image size against the configured one."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, img_size=(16, 16), patch: int = 4):
        super().__init__()
        self.img_size = img_size
        self.proj = nn.Conv2d(3, 8, patch, stride=patch)

    def forward(self, x: torch.Tensor):
        B, C, H, W = x.shape
        assert (H, W) == self.img_size, f"input size ({H}*{W}) doesn't match model ({self.img_size[0]}*{self.img_size[1]})."
        return self.proj(x).flatten(2).transpose(1, 2)


def example_inputs():
    return [(torch.randn(2, 3, 16, 16),)]
