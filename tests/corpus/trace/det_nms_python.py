"""Greedy NMS written in Python over sorted boxes (classic reference implementation)."""
# EXPECT: diverges
import torch
from torch import nn


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(-1)
    area_b = (b[:, 2:] - b[:, :2]).prod(-1)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class GreedyNMS(nn.Module):
    def __init__(self, iou_thresh=0.5):
        super().__init__()
        self.iou_thresh = iou_thresh

    def forward(self, boxes, scores):
        order = scores.argsort(descending=True)
        boxes = boxes[order]
        iou = box_iou(boxes, boxes)
        suppressed = torch.zeros(boxes.shape[0], dtype=torch.bool)
        keep = []
        for i in range(boxes.shape[0]):
            if suppressed[i]:
                continue
            keep.append(i)
            suppressed = suppressed | (iou[i] > self.iou_thresh)
        return boxes[torch.tensor(keep)]


def _boxes(seed, n):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 10
    return torch.cat([xy, xy + 2 + torch.rand(n, 2, generator=g) * 3], 1), torch.rand(n, generator=g)


def make():
    return GreedyNMS().eval(), [_boxes(0, 6), _boxes(1, 6)]
