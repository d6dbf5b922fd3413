# EXPECT: scripts
"""Score thresholding + per-class offset trick before batched NMS (torchvision-style postprocess)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.score_thresh = 0.3
        self.max_coordinate_offset = 4096.0

    def forward(self, boxes: torch.Tensor, scores: torch.Tensor, labels: torch.Tensor):
        keep = scores > self.score_thresh
        boxes, scores, labels = boxes[keep], scores[keep], labels[keep]
        offsets = labels.to(boxes.dtype) * self.max_coordinate_offset
        shifted = boxes + offsets[:, None]
        return shifted, scores, labels


def example_inputs():
    return [(torch.rand(30, 4) * 100, torch.rand(30), torch.randint(0, 5, (30,)))]
