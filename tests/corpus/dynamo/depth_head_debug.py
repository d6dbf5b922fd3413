"""Perception: monocular depth decoder left with a debugging print of intermediate statistics."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = nn.Conv2d(32, 16, 3, padding=1)
        self.up2 = nn.Conv2d(16, 8, 3, padding=1)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, feat):
        x = F.relu(self.up1(F.interpolate(feat, scale_factor=2.0)))
        print("decoder stage 1", x.shape)  # BREAK: GB0059
        x = F.relu(self.up2(F.interpolate(x, scale_factor=2.0)))
        depth = torch.sigmoid(self.out(x)) * 80.0
        return depth


def inputs():
    return [(torch.randn(1, 32, 8, 8),), (torch.randn(1, 32, 8, 8),)]
