"""Anchor generator over FPN levels: shifts from arange of each level's size (trace-safe)."""
# EXPECT: stable
import torch
from torch import nn


class AnchorGenerator(nn.Module):
    def __init__(self, strides=(8, 16), size=32.0):
        super().__init__()
        self.strides = strides
        self.size = size

    def forward(self, feats: list[torch.Tensor]):
        anchors = []
        for stride, f in zip(self.strides, feats):
            h, w = f.shape[-2:]
            sx = (torch.arange(w, dtype=torch.float32) + 0.5) * stride
            sy = (torch.arange(h, dtype=torch.float32) + 0.5) * stride
            cy, cx = torch.meshgrid(sy, sx, indexing="ij")
            c = torch.stack([cx, cy, cx, cy], -1).view(-1, 4)
            half = self.size * stride / 16
            anchors.append(c + torch.tensor([-half, -half, half, half]))
        return torch.cat(anchors)


def make():
    s1 = [torch.zeros(1, 2, 4, 4), torch.zeros(1, 2, 2, 2)]
    s2 = [torch.zeros(1, 2, 6, 8), torch.zeros(1, 2, 3, 4)]
    return AnchorGenerator().eval(), [(s1,), (s2,)]
