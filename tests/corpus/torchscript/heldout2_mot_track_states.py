# EXPECT: fails
"""Track lifecycle: count misses per track and report the ids to delete, kept in a Python list."""
from typing import List

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, max_age: int = 3):
        super().__init__()
        self.max_age = max_age

    def forward(self, matched: torch.Tensor, ages: torch.Tensor):
        ages = torch.where(matched, torch.zeros_like(ages), ages + 1)
        dead = []
        for i in range(ages.shape[0]):
            if int(ages[i]) > self.max_age:
                dead.append(i)
        return ages, dead


def example_inputs():
    return [(torch.tensor([True, False, False]), torch.tensor([0, 3, 1]))]
