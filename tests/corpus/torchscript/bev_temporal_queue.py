# EXPECT: scripts
"""BEV temporal fusion with a fixed-size queue of previous frames held in a registered buffer."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, frames: int = 3):
        super().__init__()
        self.register_buffer("queue", torch.zeros(frames, 4, 8, 8))
        self.fuse = nn.Conv2d(4 * frames, 4, 1)

    def forward(self, bev: torch.Tensor):
        self.queue = torch.cat([self.queue[1:], bev], dim=0)
        return self.fuse(self.queue.flatten(0, 1).unsqueeze(0))


def example_inputs():
    return [(torch.randn(1, 4, 8, 8),)]
