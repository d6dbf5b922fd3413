"""GB409 time-call-graph-break: Flags calls to the `time` module's clocks and `time.sleep`"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class TimeCallGraphBreak(CallBreakRule):
    code = 'GB409'
    name = 'time-call-graph-break'
    detector = 'time'
    gb_id = 'GB0007'
    severity = "warning"
    message = ('`time.time()`/`perf_counter()`/`monotonic()`/`sleep()` breaks the graph (GB0007): time the compiled call from outside (or use torch.profiler / CUDA events)')
    doc = RuleDoc(
        what="Flags calls to the `time` module's clocks and `time.sleep` in compiled code.",
        why='Dynamo skips these C functions (GB0007), splitting the graph, and the measured time no longer means what it did in eager mode.',
        example='t0 = time.perf_counter()\ny = self.body(x)\nself.elapsed = time.perf_counter() - t0',
        use_instead='# in the training loop, around the compiled call\nt0 = time.perf_counter(); y = model(x)',
    )
    bad = (
        Example('''import torch
import time

class M(torch.nn.Module):
    def forward(self, x):
        t0 = time.perf_counter()  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import time

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )
