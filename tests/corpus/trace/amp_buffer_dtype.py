"""Mixed-precision friendly module creating a scratch tensor with the input's dtype (fp32 inputs only here)."""
# EXPECT: stable
import torch
from torch import nn


class ScratchPad(nn.Module):
    def forward(self, x):
        pad = torch.zeros(x.shape[0], 2, dtype=x.dtype)
        return torch.cat([x, pad], 1)


def make():
    torch.manual_seed(0)
    return ScratchPad().eval(), [(torch.randn(2, 3),), (torch.randn(5, 3),)]
