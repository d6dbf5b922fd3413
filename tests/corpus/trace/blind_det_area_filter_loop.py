"""Removes tiny boxes with a Python list comprehension over the boxes tensor."""
# EXPECT: diverges
import torch
from torch import nn


class TinyBoxFilter(nn.Module):
    def __init__(self, min_area=4.0):
        super().__init__()
        self.min_area = min_area

    def forward(self, boxes):
        keep = [b for b in boxes if (b[2] - b[0]) * (b[3] - b[1]) >= self.min_area]
        return torch.stack(keep).sum(0)


def make():
    return TinyBoxFilter().eval(), [(torch.tensor([[0., 0., 1., 1.], [0., 0., 3., 3.], [1., 1., 5., 4.]]),),
                                    (torch.tensor([[0., 0., 4., 4.], [0., 0., 1., 2.], [1., 1., 2., 2.]]),)]
