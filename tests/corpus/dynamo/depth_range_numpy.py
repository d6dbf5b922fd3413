"""Perception: normalises a depth map by its robust range, computed with NumPy as in the offline tooling."""
import numpy as np
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.refine = nn.Conv2d(1, 8, 3, padding=1)
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, depth):
        d = depth.detach().cpu().numpy()
        near, far = np.percentile(d, [5, 95])
        scale = float(far - near)  # BREAK: GB0033
        if scale < 1e-3:
            scale = 1.0
        normed = (depth - float(near)) / scale  # BREAK: GB0033
        return self.head(torch.relu(self.refine(normed)))


def inputs():
    return [(torch.rand(1, 1, 24, 32) * 40.0,), (torch.rand(1, 1, 24, 32) * 40.0,)]
