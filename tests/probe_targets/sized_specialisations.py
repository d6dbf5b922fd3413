"""Models whose sizes or number arguments Dynamo specialises (RC512-RC516) or cannot format (GB447), and a
`torch._check` whose message reads the inputs (GB450), a size formatted with a numeric spec (GB451), the same
hazards in helper methods `forward` hands its inputs to (Dynamo inlines them), each with the input sets a real caller passes (sizes and
values that change from call to call)."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class PadToStride(nn.Module):
    def forward(self, img):
        w = img.shape[-1]
        pw = int(np.ceil(w / 16)) * 16
        return F.pad(img, (0, pw - w)).mean(-1)


class PosEncCache(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self._pe = {}

    def forward(self, tokens):
        n = tokens.shape[1]
        if n not in self._pe:
            self._pe[n] = torch.sin(torch.arange(n, dtype=tokens.dtype) / math.pi)[:, None]
        return tokens + self._pe[n]


class SizeTag(nn.Module):
    def forward(self, points):
        tag = f"pts{points.shape[0]}"
        return points * len(tag)


class TimeGrid(nn.Module):
    def forward(self, x, steps: int = 10):
        return x.sum() * torch.linspace(0.0, 1.0, steps)


class TaskHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.heads = nn.ModuleDict({f"head_{i}": nn.Linear(4, 2) for i in range(4)})

    def forward(self, x, task: int):
        return self.heads[f"head_{task}"](x)


class BoxScale(nn.Module):
    def forward(self, image, boxes):
        h, w = image.shape[-2:]
        return boxes * torch.as_tensor([w, h, w, h], dtype=boxes.dtype)


class CheckedPairs(nn.Module):
    def forward(self, boxes, scores):
        torch._check(boxes.shape[0] == scores.shape[0], lambda: f"{boxes.shape} vs {scores.shape}")
        return boxes * scores[:, None]


class FrameTag(nn.Module):
    def forward(self, x):
        tag = f"{x.shape[-2]:d}x{x.shape[-1]:d}"
        return x * len(tag)


class HelperPad(nn.Module):
    def _padded(self, w):
        return int(np.ceil(w / 16)) * 16

    def forward(self, img):
        w = img.shape[-1]
        return F.pad(img, (0, self._padded(w) - w)).mean(-1)


class HelperHeads(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.heads = nn.ModuleDict({f"head_{i}": nn.Linear(4, 2) for i in range(4)})

    def _head(self, x, task):
        out = self.heads[f"head_{task}"](x)
        return out

    def forward(self, x, task: int):
        return self._head(x, task)


def make_pad():
    return PadToStride(), [(torch.randn(1, 3, 8, w),) for w in (40, 44, 52, 60)]


def make_posenc():
    return PosEncCache(), [(torch.randn(2, n, 4),) for n in (5, 7, 9, 11)]


def make_size_tag():
    return SizeTag(), [(torch.randn(n, 4),) for n in (10, 12, 14, 16)]


def make_time_grid():
    return TimeGrid(), [(torch.randn(3), k) for k in (8, 10, 12, 16)]


def make_task_heads():
    return TaskHeads(), [(torch.randn(2, 4), t) for t in (0, 1, 2, 3)]


def make_box_scale():
    return BoxScale(), [(torch.randn(3, n, n + 8), torch.rand(5, 4)) for n in (32, 40, 48, 56)]


def make_checked_pairs():
    return CheckedPairs(), [(torch.randn(n, 4), torch.rand(n)) for n in (5, 6, 7)]


def make_frame_tag():
    return FrameTag(), [(torch.randn(1, n, n),) for n in (8, 9, 10)]


def make_helper_pad():
    return HelperPad(), [(torch.randn(1, 3, 8, w),) for w in (40, 44, 52, 60)]


def make_helper_heads():
    return HelperHeads(), [(torch.randn(2, 4), t) for t in (0, 1, 2, 3)]
