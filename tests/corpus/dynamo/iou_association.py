"""Tracking: associate detections to tracks by IoU, returning matched index pairs."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, threshold=0.3):
        super().__init__()
        self.threshold = threshold

    def iou(self, a, b):
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area = lambda t: (t[:, 2:] - t[:, :2]).prod(-1)
        return inter / (area(a)[:, None] + area(b)[None, :] - inter)

    def forward(self, tracks, dets):
        iou = self.iou(tracks, dets)
        pairs = (iou > self.threshold).nonzero()  # BREAK: GB0036
        return pairs, iou


def inputs():
    t = torch.rand(5, 2) * 20
    d = t + torch.rand(5, 2)
    return [(torch.cat([t, t + 8], 1), torch.cat([d, d + 8], 1))] * 2
