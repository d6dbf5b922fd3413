# EXPECT: fails
"""Multi-task model that runs only the head requested by the caller."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(10, 32)
        self.heads = nn.ModuleDict({"age": nn.Linear(32, 1), "gender": nn.Linear(32, 2)})

    def forward(self, x: torch.Tensor, task: str):
        return self.heads[task](self.trunk(x).relu())


def example_inputs():
    return [(torch.randn(4, 10), "age")]
