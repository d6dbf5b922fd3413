"""Detection: match anchors to ground-truth boxes by IoU (training target assignment)."""
import torch
import torch.nn as nn


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class Model(nn.Module):
    def __init__(self, pos=0.5):
        super().__init__()
        self.pos = pos

    def forward(self, anchors, gt):
        iou = box_iou(anchors, gt)
        best, idx = iou.max(dim=1)
        positive = torch.nonzero(best >= self.pos).squeeze(1)  # BREAK: GB0036
        return positive, idx[positive]


def inputs():
    a = torch.rand(40, 2) * 40
    g = torch.rand(5, 2) * 40
    return [(torch.cat([a, a + 12], 1), torch.cat([g, g + 12], 1))] * 2
