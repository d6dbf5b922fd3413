# EXPECT: scripts
"""PointNet encoder: shared MLP via Conv1d, max-pool over points, classifier."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, num_classes: int = 5):
        super().__init__()
        self.mlp = nn.Sequential(
            nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(),
            nn.Conv1d(16, 32, 1), nn.BatchNorm1d(32), nn.ReLU(),
        )
        self.cls = nn.Linear(32, num_classes)

    def forward(self, pts: torch.Tensor) -> torch.Tensor:
        f = self.mlp(pts.transpose(1, 2))
        g = torch.max(f, dim=2)[0]
        return self.cls(g)


def example_inputs():
    return [(torch.randn(2, 20, 3),)]
