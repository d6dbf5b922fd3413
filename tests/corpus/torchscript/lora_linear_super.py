# EXPECT: fails
"""LoRA adapter implemented by subclassing nn.Linear and adding a low-rank update."""
import torch
from torch import nn


class Model(nn.Linear):
    def __init__(self, rank: int = 2):
        super().__init__(8, 8)
        self.lora_a = nn.Parameter(torch.randn(rank, 8) * 0.01)
        self.lora_b = nn.Parameter(torch.zeros(8, rank))

    def forward(self, x):
        return super().forward(x) + x @ self.lora_a.t() @ self.lora_b.t()


def example_inputs():
    return [(torch.randn(3, 8),)]
