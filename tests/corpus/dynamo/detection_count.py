"""Detection: count confident detections and size the output buffer with the count."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, threshold=0.5, max_det=16):
        super().__init__()
        self.threshold = threshold
        self.max_det = max_det

    def forward(self, scores, boxes):
        num = int((scores > self.threshold).sum().item())  # BREAK: GB0124
        num = min(num, self.max_det)
        order = scores.argsort(descending=True)[: self.max_det]
        return boxes[order], num


def inputs():
    return [(torch.rand(30), torch.rand(30, 4)), (torch.rand(30), torch.rand(30, 4))]
