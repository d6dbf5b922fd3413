"""BEV: temporal fusion that keeps the previous BEV frames on the module and averages the last few."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, ch=8, keep=3):
        super().__init__()
        self.keep = keep
        self.align = nn.Conv2d(ch, ch, 3, padding=1)
        self.frames = []

    def forward(self, bev):
        self.frames.append(bev.detach())
        recent = torch.stack(self.frames[-self.keep:]).mean(0)
        return self.align(bev + recent)


def inputs():
    return [(torch.randn(1, 8, 16, 16),) for _ in range(4)]
