"""Assigns new track ids to unmatched detections, continuing from the largest id seen so far."""
# EXPECT: diverges
import torch
from torch import nn


class IdAssigner(nn.Module):
    def forward(self, ids, matched):
        next_id = int(ids.max()) + 1
        new = torch.cumsum((~matched).long(), 0) - 1 + next_id
        return torch.where(matched, ids, new)


def make():
    return IdAssigner().eval(), [(torch.tensor([3, 7, 1, 0]), torch.tensor([True, False, True, False])),
                                 (torch.tensor([12, 4, 9, 0]), torch.tensor([True, True, False, False]))]
