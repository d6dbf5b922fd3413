"""Detection: keep detections above a confidence threshold before NMS."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, threshold=0.3):
        super().__init__()
        self.threshold = threshold

    def forward(self, boxes, logits):
        scores, labels = logits.sigmoid().max(dim=1)
        keep = scores > self.threshold
        boxes = boxes[keep]  # BREAK: GB0036
        scores = scores[keep]  # BREAK: GB0036
        labels = labels[keep]  # BREAK: GB0036
        return boxes, scores, labels


def inputs():
    return [(torch.rand(30, 4), torch.randn(30, 5)), (torch.rand(30, 4), torch.randn(30, 5))]
