"""GB409 time-call-graph-break: Flags calls to the `time` module's clocks and `time.sleep`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import TIME_FUNCTIONS


class TimeCallGraphBreak(CallBreakRule):
    code = 'GB409'
    construct = Construct.HOST_CLOCK_OR_RANDOM
    name = 'time-call-graph-break'
    call_gate = gate(names=TIME_FUNCTIONS)
    loop_fix = "time from outside"
    gb_id = 'GB0007'
    severity = "warning"
    message = '`time` call breaks the graph; time the call from outside'
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

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0007" if called_function(node, ctx, TIME_FUNCTIONS) else None
