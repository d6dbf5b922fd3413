"""Segmentation input padding done in a helper: forward passes the image height and width to it, and the
camera crops change them from frame to frame."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, stride=16):
        super().__init__()
        self.stride = stride
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def padding(self, h, w):
        ph = int(np.ceil(h / self.stride)) * self.stride - h
        pw = int(np.ceil(w / self.stride)) * self.stride - w
        return ph, pw

    def forward(self, img):
        h, w = img.shape[-2:]
        ph, pw = self.padding(h, w)
        return self.conv(F.pad(img, (0, pw, 0, ph)))


def inputs():
    return [(torch.randn(1, 3, 40 + 4 * k, 56 + 4 * k),) for k in range(5)]
