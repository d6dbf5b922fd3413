"""Control: proprioception + image observation encoder with late fusion."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 8, 5, 2), nn.ReLU(), nn.Conv2d(8, 8, 3, 2), nn.ReLU(), nn.Flatten())
        self.proprio = nn.Linear(7, 16)
        self.fuse = nn.LazyLinear(32)

    def forward(self, image, joints):
        feats = torch.cat([self.cnn(image), torch.relu(self.proprio(joints))], dim=-1)
        return torch.relu(self.fuse(feats))


def inputs():
    return [(torch.randn(2, 3, 32, 32), torch.randn(2, 7)) for _ in range(2)]
