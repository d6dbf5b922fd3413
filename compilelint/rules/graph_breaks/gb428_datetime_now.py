"""GB428 datetime-now-graph-break: Flags `datetime.datetime.now()`, `utcnow()`, `today()` and `datetime.date.today()`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import DATETIME_NOW


class DatetimeNowGraphBreak(CallBreakRule):
    code = 'GB428'
    construct = Construct.HOST_CLOCK_OR_RANDOM
    name = 'datetime-now-graph-break'
    call_gate = gate(names=DATETIME_NOW)
    loop_fix = "take timestamps outside"
    gb_id = 'GB0156'
    older_gb_ids = {"2.11": "GB0007"}
    version_note = ('torch 2.11 breaks the graph on the same line with GB0007 (Attempted to call function marked as skipped); Dynamo also reports a guard that failed on the frame that created it.')
    severity = "warning"
    message = '`datetime.now()` breaks the graph; take timestamps outside'
    doc = RuleDoc(
        what='Flags `datetime.datetime.now()`, `utcnow()`, `today()` and `datetime.date.today()` in compiled code.',
        why='Dynamo cannot trace the C datetime constructors (GB0156) and splits the graph.',
        example='self.last = datetime.datetime.now()',
        use_instead='# record timestamps in the training loop',
    )
    bad = (
        Example('''import torch
import datetime

class M(torch.nn.Module):
    def forward(self, x):
        stamp = datetime.datetime.now()  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import datetime

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0156" if called_function(node, ctx, DATETIME_NOW) else None
