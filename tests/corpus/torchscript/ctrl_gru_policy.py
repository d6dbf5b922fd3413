# EXPECT: scripts
"""Recurrent policy with an optional carried hidden state."""
from typing import Optional, Tuple

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(5, 16)
        self.pi = nn.Linear(16, 2)

    def forward(self, obs: torch.Tensor, h: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        if h is None:
            h = torch.zeros(obs.shape[0], 16)
        h = self.cell(obs, h)
        return self.pi(h), h


def example_inputs():
    return [(torch.randn(2, 5),), (torch.randn(2, 5), torch.randn(2, 16))]
