# EXPECT: fails
"""Greedy class-agnostic NMS written in Python, as found in many detection repos' postprocess.py."""
import torch
from torch import nn


def box_iou(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class Model(nn.Module):
    def __init__(self, iou_thr: float = 0.5):
        super().__init__()
        self.iou_thr = iou_thr

    def forward(self, boxes: torch.Tensor, scores: torch.Tensor):
        order = scores.argsort(descending=True)
        boxes = boxes[order]
        suppressed = torch.zeros(boxes.shape[0], dtype=torch.bool)
        keep = []
        for i in range(boxes.shape[0]):
            if bool(suppressed[i]):
                continue
            keep.append(i)
            ious = box_iou(boxes[i : i + 1], boxes)[0]
            suppressed = suppressed | (ious > self.iou_thr)
        return order[torch.tensor(keep, dtype=torch.long)]


def example_inputs():
    xy = torch.rand(20, 2) * 50
    return [(torch.cat([xy, xy + 10], dim=1), torch.rand(20))]
