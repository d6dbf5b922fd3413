"""Track-ID assignment: match by argmax and copy IDs to a Python dict."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, tracks, dets):
        sim = self.proj(tracks) @ dets.T
        match = sim.argmax(-1)
        ids = {}
        for t, d in enumerate(match):
            ids[t] = d
        return sim, match


def inputs():
    return [(torch.randn(3, 4), torch.randn(5, 4))] * 2
