"""Lane existence head that skips regression when the existence score is low."""
# EXPECT: stable
import torch
from torch import nn


class LaneHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.exist = nn.Linear(32, 1)
        self.reg = nn.Linear(32, 18)

    def forward(self, feat):
        p = self.exist(feat).sigmoid()
        pts = self.reg(feat).view(-1, 9, 2)
        return pts * (p > 0.5).float().unsqueeze(-1), p


def make():
    torch.manual_seed(0)
    return LaneHead().eval(), [(torch.randn(4, 32),), (torch.randn(2, 32) * 5,)]
