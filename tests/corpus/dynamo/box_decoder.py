"""Detection: decode anchor-relative regression deltas into xyxy boxes (Faster R-CNN style)."""
import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, weights=(10.0, 10.0, 5.0, 5.0), clip=math.log(1000.0 / 16)):
        super().__init__()
        self.weights = weights
        self.clip = clip

    def forward(self, deltas, anchors):
        wx, wy, ww, wh = self.weights
        widths = anchors[:, 2] - anchors[:, 0]
        heights = anchors[:, 3] - anchors[:, 1]
        cx = anchors[:, 0] + 0.5 * widths
        cy = anchors[:, 1] + 0.5 * heights
        dx, dy = deltas[:, 0] / wx, deltas[:, 1] / wy
        dw = torch.clamp(deltas[:, 2] / ww, max=self.clip)
        dh = torch.clamp(deltas[:, 3] / wh, max=self.clip)
        pcx, pcy = dx * widths + cx, dy * heights + cy
        pw, ph = torch.exp(dw) * widths, torch.exp(dh) * heights
        return torch.stack([pcx - 0.5 * pw, pcy - 0.5 * ph, pcx + 0.5 * pw, pcy + 0.5 * ph], dim=1)


def inputs():
    a = torch.rand(20, 2) * 50
    anchors = torch.cat([a, a + 16], dim=1)
    return [(torch.randn(20, 4), anchors), (torch.randn(20, 4), anchors)]
