"""Planner that truncates waypoints at the first one closer than a safety margin to an obstacle."""
# EXPECT: diverges
import torch
from torch import nn


class WaypointStopper(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin

    def forward(self, waypoints, obstacle):
        dist = (waypoints - obstacle).norm(dim=-1)
        stop = len(waypoints)
        for i, d in enumerate(dist):
            if d < self.margin:
                stop = i
                break
        return waypoints[:stop].sum(0)


def make():
    wp = torch.stack([torch.arange(8.0), torch.zeros(8)], -1)
    return WaypointStopper().eval(), [(wp, torch.tensor([3.0, 0.5])), (wp, torch.tensor([6.0, 0.2]))]
