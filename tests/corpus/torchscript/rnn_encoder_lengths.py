# EXPECT: scripts
"""LSTM sequence encoder that gathers the last valid timestep per sequence."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 12, batch_first=True)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        idx = (lengths - 1).clamp(min=0).view(-1, 1, 1).expand(-1, 1, out.shape[-1])
        return out.gather(1, idx).squeeze(1)


def example_inputs():
    return [(torch.randn(3, 5, 6), torch.tensor([5, 2, 4]))]
