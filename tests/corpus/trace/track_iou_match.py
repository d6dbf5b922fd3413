"""Tracker association: greedy IoU matching of detections to tracks in Python."""
# EXPECT: diverges
import torch
from torch import nn


class GreedyMatcher(nn.Module):
    def __init__(self, min_iou=0.3):
        super().__init__()
        self.min_iou = min_iou

    def forward(self, tracks, dets):
        lt = torch.max(tracks[:, None, :2], dets[None, :, :2])
        rb = torch.min(tracks[:, None, 2:], dets[None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area_t = (tracks[:, 2:] - tracks[:, :2]).prod(-1)
        area_d = (dets[:, 2:] - dets[:, :2]).prod(-1)
        iou = inter / (area_t[:, None] + area_d[None] - inter)
        assignment = torch.full((tracks.shape[0],), -1, dtype=torch.long)
        best_iou, best = iou.max(1)
        for t in range(tracks.shape[0]):
            if best_iou[t] >= self.min_iou:
                assignment[t] = best[t]
        return assignment


def _boxes(seed, n):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 6
    return torch.cat([xy, xy + 3], 1)


def make():
    return GreedyMatcher().eval(), [(_boxes(0, 4), _boxes(1, 5)), (_boxes(2, 4), _boxes(3, 5))]
