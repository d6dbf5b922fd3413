# EXPECT: scripts
"""Track refinement that can take optional per-track metadata tensors by name."""
from typing import Dict, Optional

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.refine = nn.Linear(4, 4)

    def forward(self, boxes: torch.Tensor, meta: Optional[Dict[str, torch.Tensor]] = None):
        out = boxes + self.refine(boxes)
        if meta is not None and "velocity" in meta:
            out = out + meta["velocity"]
        return out


def example_inputs():
    return [(torch.randn(3, 4),), (torch.randn(3, 4), {"velocity": torch.randn(3, 4)})]
