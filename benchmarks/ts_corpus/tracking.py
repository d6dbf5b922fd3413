import copy
import logging
import time
import torch
import torch.nn as nn
from typing import Dict, List, Optional

log = logging.getLogger(__name__)


class KalmanPredict(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("F", torch.eye(8))
        self.register_buffer("Q", torch.eye(8) * 0.01)

    def forward(self, mean, cov):
        mean = mean @ self.F.T
        cov = self.F @ cov @ self.F.T + self.Q
        return mean, cov


class IoUMatcher(nn.Module):
    def forward(self, a, b):
        lt = torch.max(a[:, None, :2], b[:, :2])
        rb = torch.min(a[:, None, 2:], b[:, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]
        area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        return inter / (area_a[:, None] + area_b - inter)


class TrackMemory(nn.Module):
    def __init__(self):
        super().__init__()
        self.momentum = 0.9

    def forward(self, feats, prev):
        snapshot = copy.deepcopy(prev)
        return self.momentum * snapshot + (1 - self.momentum) * feats


class TimedEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        start = time.time()
        y = self.proj(x)
        return y


class LoggingEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 8)

    def forward(self, x):
        y = self.proj(x)
        log.debug("embedded %d", y.shape[0])
        return y


class ReIDHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        y = self.fc(x)
        return y / y.norm(dim=1, keepdim=True).clamp(min=1e-6)


class GatedTracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = 9.4877

    def forward(self, d2):
        ok = [i for i in range(d2.shape[0]) if bool(d2[i] < self.gate)]
        return d2[ok]


class AssociationCost(nn.Module):
    def forward(self, cost, mask: Optional[torch.Tensor] = None):
        if mask is not None:
            cost = cost.masked_fill(~mask, 1e5)
        return cost.min(dim=1)


class TrackStateDict(nn.Module):
    def forward(self, ids: List[int], feats):
        table: Dict[int, torch.Tensor] = {}
        for i, tid in enumerate(ids):
            table[tid] = feats[i]
        return table


class TrackerWithRecursion(nn.Module):
    def forward(self, x):
        return self.refine(x, 3)

    def refine(self, x, steps: int):
        if steps == 0:
            return x
        return self.refine(x * 0.5 + 0.5 * x.mean(), steps - 1)
