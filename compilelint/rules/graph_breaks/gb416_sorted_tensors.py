"""GB416 sorted-tensors-graph-break: Flags the builtin `sorted(...)` applied to a tensor or a list/tuple of tensors"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class SortedTensorsGraphBreak(CallBreakRule):
    code = 'GB416'
    name = 'sorted-tensors-graph-break'
    detector = 'sorted'
    gb_id = 'GB0207'
    severity = "warning"
    message = ('`sorted()` over tensors breaks the graph (GB0207; GB0059 for `sorted(tensor)`): comparing tensors needs their values; sort on device with `torch.sort`/`torch.argsort` and index')
    doc = RuleDoc(
        what='Flags the builtin `sorted(...)` applied to a tensor or a list/tuple of tensors in compiled code.',
        why='Sorting Python objects by tensor keys needs each comparison as a Python bool, which Dynamo cannot trace (GB0207), so it breaks the graph.',
        example='parts = sorted(x.unbind(0), key=lambda t: t.sum())',
        use_instead='parts = x[torch.argsort(x.sum(1))]',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = sorted(x.unbind(0), key=lambda t: t.sum())  # <-
        return parts[0] * 2
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = x[torch.argsort(x.sum(1))]
        return parts[0] * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        order = sorted([3, 1, 2])
        return x * order[0]
'''),
    )
