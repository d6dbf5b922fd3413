"""Integral (soft-argmax) keypoint regression with temperature from config."""
# EXPECT: stable
import torch
from torch import nn


class SoftArgmax2d(nn.Module):
    def __init__(self, beta=10.0):
        super().__init__()
        self.beta = beta

    def forward(self, heat):
        n, k, h, w = heat.shape
        prob = (heat.view(n, k, -1) * self.beta).softmax(-1).view(n, k, h, w)
        xs = torch.linspace(0, 1, w, device=heat.device)
        ys = torch.linspace(0, 1, h, device=heat.device)
        x = (prob.sum(2) * xs).sum(-1)
        y = (prob.sum(3) * ys).sum(-1)
        return torch.stack([x, y], -1)


def make():
    torch.manual_seed(0)
    return SoftArgmax2d().eval(), [(torch.randn(1, 3, 8, 8),), (torch.randn(2, 3, 16, 12),)]
