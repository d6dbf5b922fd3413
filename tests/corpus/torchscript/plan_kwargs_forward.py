# EXPECT: fails
"""Route planner that forwards extra keyword options to its scorer."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 8)

    def forward(self, waypoints: torch.Tensor, **options):
        h = self.enc(waypoints).relu()
        scale = options.get("scale", 1.0)
        return h.mean(0) * scale


def example_inputs():
    return [(torch.randn(6, 4),)]
