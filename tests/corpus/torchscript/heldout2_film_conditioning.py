# EXPECT: scripts
"""FiLM conditioning of a conv feature map on a task embedding."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, num_tasks: int = 4, channels: int = 8):
        super().__init__()
        self.task_emb = nn.Embedding(num_tasks, 16)
        self.film = nn.Linear(16, 2 * channels)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor, task_id: torch.Tensor) -> torch.Tensor:
        gamma, beta = self.film(self.task_emb(task_id)).chunk(2, -1)
        h = self.conv(x)
        return h * (1 + gamma[:, :, None, None]) + beta[:, :, None, None]


def example_inputs():
    return [(torch.randn(2, 8, 4, 4), torch.tensor([0, 3]))]
