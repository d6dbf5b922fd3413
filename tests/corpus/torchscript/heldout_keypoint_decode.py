# EXPECT: scripts
"""CenterNet keypoint decoding with max-pool NMS and top-k peaks."""
import torch
import torch.nn.functional as F
from torch import nn


class Model(nn.Module):
    def __init__(self, k: int = 5):
        super().__init__()
        self.k = k

    def forward(self, heat: torch.Tensor):
        hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
        keep = (hmax == heat).float()
        heat = heat * keep
        b, c, h, w = heat.shape
        scores, inds = heat.view(b, -1).topk(self.k)
        classes = torch.div(inds, h * w, rounding_mode="floor")
        inds = inds % (h * w)
        ys = torch.div(inds, w, rounding_mode="floor")
        xs = inds % w
        return scores, classes, ys, xs


def example_inputs():
    return [(torch.rand(2, 3, 8, 8),)]
