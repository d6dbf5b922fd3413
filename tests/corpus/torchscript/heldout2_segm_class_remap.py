# EXPECT: scripts
"""Segmentation output remapping from training ids to dataset ids with a lookup dict."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(4, 3, 1)
        self.id_map = {0: 7, 1: 11, 2: 26}

    def forward(self, x: torch.Tensor):
        pred = self.head(x).argmax(1)
        out = torch.zeros_like(pred)
        for train_id, dataset_id in self.id_map.items():
            out[pred == train_id] = dataset_id
        return out


def example_inputs():
    return [(torch.randn(1, 4, 5, 5),)]
