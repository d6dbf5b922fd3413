"""Control: one predict/update step of a batched linear Kalman filter."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, n=4, m=2):
        super().__init__()
        self.register_buffer("F", torch.eye(n) + 0.1 * torch.diag(torch.ones(n - 1), 1))
        self.register_buffer("H", torch.eye(m, n))
        self.register_buffer("Q", 0.01 * torch.eye(n))
        self.register_buffer("R", 0.1 * torch.eye(m))

    def forward(self, x, P, z):
        x = x @ self.F.T
        P = self.F @ P @ self.F.T + self.Q
        S = self.H @ P @ self.H.T + self.R
        K = P @ self.H.T @ torch.linalg.inv(S)
        y = z - x @ self.H.T
        x = x + y @ K.transpose(-1, -2)
        P = (torch.eye(P.shape[-1]) - K @ self.H) @ P
        return x, P


def inputs():
    return [(torch.randn(3, 4), torch.eye(4).repeat(3, 1, 1), torch.randn(3, 2)) for _ in range(2)]
