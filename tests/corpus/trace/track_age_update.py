"""Track lifecycle: ages stored in a buffer and updated with tensor ops (trace-safe state)."""
# EXPECT: stable
import torch
from torch import nn


class TrackAges(nn.Module):
    def __init__(self, max_tracks=6, max_age=3):
        super().__init__()
        self.max_age = max_age
        self.register_buffer("ages", torch.zeros(max_tracks))

    def forward(self, matched):
        ages = torch.where(matched, torch.zeros_like(self.ages), self.ages + 1)
        alive = ages <= self.max_age
        return ages * alive, alive


def make():
    return TrackAges().eval(), [(torch.tensor([True, False, True, False, False, True]),),
                                (torch.tensor([False, False, True, True, False, False]),)]
