"""Tracking: re-identification embedding with a helper excluded from compilation."""
import torch
import torch.nn as nn


@torch.compiler.disable
def gallery_lookup(emb, gallery):
    return (emb @ gallery.T).argmax(-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 8))
        self.register_buffer("gallery", torch.randn(10, 8))

    def forward(self, crops):
        emb = nn.functional.normalize(self.net(crops), dim=-1)
        ids = gallery_lookup(emb, self.gallery)  # BREAK: GB0098
        return emb, ids


def inputs():
    return [(torch.randn(3, 12),), (torch.randn(3, 12),)]
