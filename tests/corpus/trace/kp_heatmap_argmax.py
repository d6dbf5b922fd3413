"""Keypoint decoding from heatmaps with argmax and sub-pixel refinement (tensor ops only)."""
# EXPECT: stable
import torch
from torch import nn


class HeatmapDecoder(nn.Module):
    def forward(self, heatmaps):
        n, k, h, w = heatmaps.shape
        flat = heatmaps.reshape(n, k, -1)
        maxvals, idx = flat.max(-1)
        xs = (idx % w).float()
        ys = torch.div(idx, w, rounding_mode="floor").float()
        padded = torch.nn.functional.pad(heatmaps, (1, 1, 1, 1))
        pflat = padded.reshape(n, k, -1)
        pidx = (ys.long() + 1) * (w + 2) + xs.long() + 1
        dx = pflat.gather(2, (pidx + 1).unsqueeze(-1)) - pflat.gather(2, (pidx - 1).unsqueeze(-1))
        dy = pflat.gather(2, (pidx + w + 2).unsqueeze(-1)) - pflat.gather(2, (pidx - w - 2).unsqueeze(-1))
        coords = torch.stack([xs + 0.25 * dx.squeeze(-1).sign(), ys + 0.25 * dy.squeeze(-1).sign()], -1)
        return coords, maxvals


def make():
    torch.manual_seed(0)
    return HeatmapDecoder().eval(), [(torch.rand(1, 4, 8, 8),), (torch.rand(2, 4, 10, 12),)]
