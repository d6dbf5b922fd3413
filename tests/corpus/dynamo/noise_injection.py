"""Regularisation: Gaussian noise injection drawn from numpy's global RNG."""
import numpy as np
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, sigma=0.1):
        super().__init__()
        self.sigma = sigma
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        noise = torch.from_numpy(np.random.normal(0.0, self.sigma, size=(6,)).astype("float32"))
        return self.fc(x + noise)


def inputs():
    return [(torch.randn(3, 6),), (torch.randn(3, 6),)]
