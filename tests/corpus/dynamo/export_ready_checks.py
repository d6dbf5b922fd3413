"""A tracking association head prepared for torch.export: its assumptions stated with torch._check, each
message naming the shapes that broke it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)

    def forward(self, tracks, detections):
        torch._check(tracks.shape[-1] == self.dim, lambda: f"tracks have {tracks.shape[-1]} features, not {self.dim}")  # BREAK: GB9158
        torch._check(detections.shape[-1] == tracks.shape[-1], lambda: "tracks and detections differ in width")
        cost = self.proj(tracks) @ self.proj(detections).T
        return cost.softmax(-1)


def inputs():
    return [(torch.randn(n, 16), torch.randn(n + 2, 16)) for n in (4, 6, 8)]
