# EXPECT: scripts
"""Voice-activity gate: frame the waveform and threshold per-frame energy."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, frame: int = 160, hop: int = 80):
        super().__init__()
        self.frame = frame
        self.hop = hop
        self.threshold = 1e-3

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        frames = wav.unfold(-1, self.frame, self.hop)
        energy = frames.pow(2).mean(-1)
        return energy > self.threshold


def example_inputs():
    return [(torch.randn(2, 1600) * 0.1,)]
