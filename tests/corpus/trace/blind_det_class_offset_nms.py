"""Batched NMS trick: offsets boxes by class id times the max coordinate read back as a Python float."""
# EXPECT: diverges
import torch
from torch import nn


class ClassOffsetBoxes(nn.Module):
    def forward(self, boxes, labels):
        max_coord = float(boxes.max())
        offsets = labels.to(boxes) * (max_coord + 1)
        return boxes + offsets[:, None]


def make():
    torch.manual_seed(0)
    return ClassOffsetBoxes().eval(), [(torch.rand(5, 4) * 10, torch.tensor([0, 1, 1, 2, 0])),
                                       (torch.rand(5, 4) * 50, torch.tensor([2, 1, 0, 0, 1]))]
