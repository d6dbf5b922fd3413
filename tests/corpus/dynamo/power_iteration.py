"""Numerics: spectral-norm estimate by power iteration until convergence."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, tol=1e-3, max_iter=20):
        super().__init__()
        self.tol, self.max_iter = tol, max_iter

    def forward(self, W):
        v = torch.ones(W.shape[1]) / W.shape[1] ** 0.5
        sigma = torch.zeros(())
        delta = torch.ones(())
        while delta > self.tol:  # BREAK: GB0170
            u = torch.nn.functional.normalize(W @ v, dim=0)
            v = torch.nn.functional.normalize(W.T @ u, dim=0)
            new_sigma = u @ W @ v
            delta = (new_sigma - sigma).abs()
            sigma = new_sigma
        return sigma


def inputs():
    return [(torch.randn(6, 4),), (torch.randn(6, 4),)]
