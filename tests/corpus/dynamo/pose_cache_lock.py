"""Robotics serving: a localisation head that publishes the latest pose to other threads under a lock."""
import threading

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 7))
        self._pose_lock = threading.Lock()
        self.latest_pose = torch.zeros(7)

    def forward(self, scan_feat):
        pose = self.encoder(scan_feat).mean(0)
        with self._pose_lock:  # BREAK: GB0142
            self.latest_pose = pose.detach()
        quat = pose[3:] / pose[3:].norm()
        return torch.cat([pose[:3], quat])


def inputs():
    return [(torch.randn(12, 16),), (torch.randn(12, 16),)]
