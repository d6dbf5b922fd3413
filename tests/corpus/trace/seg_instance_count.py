"""Instance segmentation post-process: builds one mask per unique instance id found in the map."""
# EXPECT: diverges
import torch
from torch import nn


class InstanceMasks(nn.Module):
    def forward(self, id_map):
        ids = torch.unique(id_map)
        masks = [(id_map == i).float() for i in ids]
        return torch.stack(masks).sum((1, 2))


def make():
    return InstanceMasks().eval(), [(torch.tensor([[0, 1], [1, 2]]),), (torch.tensor([[0, 3], [4, 2]]),)]
