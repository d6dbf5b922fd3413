# EXPECT: scripts
"""Multi-task model: shared trunk, one head per task in an nn.ModuleDict, dict of outputs."""
from typing import Dict

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
        self.heads = nn.ModuleDict({"depth": nn.Linear(32, 1), "semantic": nn.Linear(32, 5), "normal": nn.Linear(32, 3)})

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        h = self.trunk(x)
        out: Dict[str, torch.Tensor] = {}
        for name, head in self.heads.items():
            out[name] = head(h)
        return out


def example_inputs():
    return [(torch.randn(4, 10),)]
