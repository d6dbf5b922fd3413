"""Perception: pad images so height and width are multiples of the network stride."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, stride=8):
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, img):
        h, w = img.shape[-2:]
        ph = (self.stride - h % self.stride) % self.stride
        pw = (self.stride - w % self.stride) % self.stride
        img = F.pad(img, (0, pw, 0, ph))
        return self.conv(img)


def inputs():
    return [(torch.randn(1, 3, 30, 21),), (torch.randn(1, 3, 30, 21),)]
