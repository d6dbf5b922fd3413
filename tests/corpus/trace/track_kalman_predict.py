"""Constant-velocity Kalman predict step for a batch of tracks: pure tensor algebra."""
# EXPECT: stable
import torch
from torch import nn


class KalmanPredict(nn.Module):
    def __init__(self, dt=0.1):
        super().__init__()
        f = torch.eye(8)
        for i in range(4):
            f[i, i + 4] = dt
        self.register_buffer("F", f)
        self.register_buffer("Q", torch.eye(8) * 0.01)

    def forward(self, mean, cov):
        mean = mean @ self.F.T
        cov = self.F @ cov @ self.F.T + self.Q
        return mean, cov


def make():
    torch.manual_seed(0)
    return KalmanPredict().eval(), [(torch.randn(3, 8), torch.eye(8).expand(3, 8, 8).clone()),
                                    (torch.randn(7, 8), torch.eye(8).expand(7, 8, 8) * 2)]
