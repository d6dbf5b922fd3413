"""Segmentation: pads the camera image to a multiple of the backbone stride, runs a small encoder and
crops the logits back; crops from the ISP change the image width from frame to frame."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, stride=16):
        super().__init__()
        self.stride = stride
        self.enc = nn.Conv2d(3, 8, 3, padding=1)
        self.cls = nn.Conv2d(8, 4, 1)

    def forward(self, img):
        h, w = img.shape[-2:]
        ph = int(np.ceil(h / self.stride)) * self.stride
        pw = int(np.ceil(w / self.stride)) * self.stride
        x = F.pad(img, (0, pw - w, 0, ph - h))
        logits = self.cls(self.enc(x).relu())
        return logits[..., :h, :w]


def inputs():
    return [(torch.randn(1, 3, 32, w),) for w in (40, 44, 52, 60, 68)]
