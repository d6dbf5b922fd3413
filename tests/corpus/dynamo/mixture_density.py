"""Forecasting: mixture density network head (means, scales, mixture weights)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, dim=16, k=3, out=2):
        super().__init__()
        self.k, self.out = k, out
        self.head = nn.Linear(dim, k * (2 * out + 1))

    def forward(self, h):
        p = self.head(h)
        pi, mu, sigma = p.split([self.k, self.k * self.out, self.k * self.out], -1)
        return F.log_softmax(pi, -1), mu.view(-1, self.k, self.out), F.softplus(sigma).view(-1, self.k, self.out) + 1e-3


def inputs():
    return [(torch.randn(4, 16),), (torch.randn(4, 16),)]
