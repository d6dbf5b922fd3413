"""Flip test for pose: averages predictions on the image and its mirror, swapping left/right joints."""
# EXPECT: stable
import torch
from torch import nn


class FlipTest(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(3, 4, 3, padding=1)
        self.flip_pairs = [(0, 1), (2, 3)]

    def forward(self, img):
        heat = self.net(img)
        flipped = self.net(img.flip(-1)).flip(-1)
        perm = list(range(heat.shape[1]))
        for a, b in self.flip_pairs:
            perm[a], perm[b] = perm[b], perm[a]
        return (heat + flipped[:, perm]) / 2


def make():
    torch.manual_seed(0)
    return FlipTest().eval(), [(torch.randn(1, 3, 8, 8),), (torch.randn(2, 3, 10, 6),)]
