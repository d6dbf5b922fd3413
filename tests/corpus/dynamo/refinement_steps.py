"""Perception: iterative box refinement with the step count stored in a tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.refine = nn.Linear(4, 4)
        self.register_buffer("steps", torch.tensor(3))

    def forward(self, boxes):
        for _ in range(self.steps):  # BREAK: GB0059
            boxes = boxes + 0.1 * torch.tanh(self.refine(boxes))
        return boxes


def inputs():
    return [(torch.rand(6, 4),), (torch.rand(6, 4),)]
