"""Video model that runs a 2D encoder frame by frame over the time dimension."""
# EXPECT: diverges
import torch
from torch import nn


class FrameEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, clip):
        b, t, c, h, w = clip.shape
        frames = []
        for i in range(t):
            frames.append(self.enc(clip[:, i]).mean((2, 3)))
        return torch.stack(frames, 1)


def make():
    torch.manual_seed(0)
    return FrameEncoder().eval(), [(torch.randn(1, 3, 3, 8, 8),), (torch.randn(1, 5, 3, 8, 8),)]
