"""Letterbox resize: scale factor from the image size computed with Python min() of ratios and int()."""
# EXPECT: diverges
import torch
import torch.nn.functional as F
from torch import nn


class Letterbox(nn.Module):
    def __init__(self, target=32):
        super().__init__()
        self.target = target

    def forward(self, img):
        h, w = img.shape[-2:]
        r = min(self.target / h, self.target / w)
        nh, nw = int(h * r), int(w * r)
        resized = F.interpolate(img, size=(nh, nw), mode="bilinear", align_corners=False)
        return F.pad(resized, (0, self.target - nw, 0, self.target - nh))


def make():
    torch.manual_seed(0)
    return Letterbox().eval(), [(torch.randn(1, 3, 16, 32),), (torch.randn(1, 3, 32, 16),)]
