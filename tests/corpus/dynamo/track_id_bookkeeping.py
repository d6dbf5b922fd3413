"""Tracking: per-track bookkeeping that walks the active track ids in Python."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 8)

    def forward(self, feats, track_ids):
        emb = nn.functional.normalize(self.embed(feats), dim=-1)
        ages = {}
        for tid in track_ids.tolist():  # BREAK: GB0033
            ages[tid] = ages.get(tid, 0) + 1
        return emb, len(ages)


def inputs():
    # consecutive frames: the same tracks, plus one that appears and one that is lost
    return [(torch.randn(4, 8), torch.tensor(ids)) for ids in ([3, 7, 3, 9], [3, 7, 9, 12], [7, 9, 12, 12])]
