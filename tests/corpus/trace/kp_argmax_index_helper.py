"""Keypoint crop: a module-level helper indexes the feature map at the argmax location (tensor indices)."""
# EXPECT: stable
import torch
from torch import nn


def crop_at_peak(feat, heat):
    c, h, w = feat.shape
    idx = heat.flatten().argmax()
    y = torch.div(idx, w, rounding_mode="floor")
    x = idx % w
    return feat[:, y, x]


class PeakFeature(nn.Module):
    def forward(self, feat, heat):
        return crop_at_peak(feat, heat)


def make():
    torch.manual_seed(0)
    return PeakFeature().eval(), [(torch.randn(3, 5, 5), torch.rand(5, 5)), (torch.randn(3, 5, 5), torch.rand(5, 5))]
