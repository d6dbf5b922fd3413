"""Mixed precision: an MLP block that runs its matmuls under CPU autocast."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = torch.nn.functional.gelu(self.fc1(x))
            y = self.fc2(h)
        return x + y.float()


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
