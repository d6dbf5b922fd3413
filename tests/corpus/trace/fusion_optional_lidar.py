"""Camera-lidar fusion taking a dict batch; lidar is optional."""
# EXPECT: diverges
import torch
from torch import nn


class OptionalLidarFusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.cam = nn.Linear(6, 4)
        self.lidar = nn.Linear(3, 4)

    def forward(self, batch):
        out = self.cam(batch["camera"])
        if "lidar" in batch:
            out = out + self.lidar(batch["lidar"])
        return out


def make():
    torch.manual_seed(0)
    return OptionalLidarFusion().eval(), [({"camera": torch.randn(2, 6)},),
                                          ({"camera": torch.randn(2, 6), "lidar": torch.randn(2, 3)},)]
