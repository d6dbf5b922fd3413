"""Temporal subsampling: picks every k-th frame, k chosen so at most 4 frames remain."""
# EXPECT: stable
import torch
from torch import nn


class TemporalSubsample(nn.Module):
    def __init__(self, max_frames=4):
        super().__init__()
        self.max_frames = max_frames

    def forward(self, clip):
        t = clip.shape[1]
        k = (t + self.max_frames - 1) // self.max_frames
        return clip[:, ::k].mean(1)


def make():
    torch.manual_seed(0)
    return TemporalSubsample().eval(), [(torch.randn(1, 8, 3),), (torch.randn(1, 12, 3),)]
