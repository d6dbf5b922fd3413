"""Detection: batched per-class suppression that loops over the classes present."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, iou_threshold=0.5):
        super().__init__()
        self.iou_threshold = iou_threshold

    def forward(self, boxes, scores, labels):
        keep_scores = torch.zeros_like(scores)
        for c in torch.unique(labels):  # BREAK: GB0036
            cls_mask = labels == c
            keep_scores = keep_scores + torch.where(cls_mask, scores, torch.zeros_like(scores))
        return boxes, keep_scores


def inputs():
    return [(torch.rand(12, 4), torch.rand(12), torch.randint(0, 3, (12,)))] * 2
