# EXPECT: scripts
"""Tracker wrapper that counts processed frames and decays track confidences."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame_id = 0
        self.decay = 0.9

    def forward(self, conf: torch.Tensor):
        self.frame_id += 1
        return conf * (self.decay ** self.frame_id)


def example_inputs():
    return [(torch.rand(7),)]
