"""Caps the number of detections: keeps min(N, max_dets) highest-scoring boxes using a Python min()."""
# EXPECT: diverges
import torch
from torch import nn


class MaxDetsCap(nn.Module):
    def __init__(self, max_dets=3):
        super().__init__()
        self.max_dets = max_dets

    def forward(self, boxes, scores):
        keep = scores > 0.2
        boxes, scores = boxes[keep], scores[keep]
        k = min(self.max_dets, scores.shape[0])
        top = scores.topk(k).indices
        return boxes[top].sum(0)


def make():
    return MaxDetsCap().eval(), [(torch.rand(6, 4), torch.tensor([0.9, 0.1, 0.5, 0.05, 0.7, 0.3])),
                                 (torch.rand(6, 4), torch.tensor([0.1, 0.1, 0.5, 0.05, 0.1, 0.1]))]
