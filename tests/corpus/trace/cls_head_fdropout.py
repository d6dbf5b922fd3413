"""Classifier head using functional dropout without tying it to the module's mode."""
# EXPECT: diverges
import torch
import torch.nn.functional as F
from torch import nn


class ClsHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        x = F.dropout(x, p=0.3)
        return self.fc(x)


def make():
    torch.manual_seed(0)
    return ClsHead().eval(), [(torch.randn(2, 16, 4, 4),), (torch.randn(3, 16, 5, 5),)]
