"""GB408 warnings-warn-graph-break: Flags `warnings.warn(...)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.torchapi.dynamo import WARNINGS_FUNCTIONS


class WarningsWarnGraphBreak(CallBreakRule):
    code = 'GB408'
    name = 'warnings-warn-graph-break'
    call_gate = gate(heads={"warnings"})
    loop_fix = "warn outside the compiled code"
    gb_id = 'GB0007'
    severity = "warning"
    message = '`warnings.warn()` breaks the graph; warn outside compiled code'
    version_note = ('Silent in a file that adds warnings.warn to reorderable_logging_functions (verified 2.13).')
    doc = RuleDoc(
        what='Flags `warnings.warn(...)` in compiled code.',
        why='Dynamo treats `warnings.warn` as a function it must not trace (GB0007) and splits the graph around it, on every call, even when the filter hides the warning.',
        example="warnings.warn('deprecated arg')\nreturn self.proj(x)",
        use_instead='# warn in __init__ or at the call site, outside the compiled code\nreturn self.proj(x)',
    )
    bad = (
        Example('''import torch
import warnings

class M(torch.nn.Module):
    def forward(self, x):
        warnings.warn("slow path")  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import warnings

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        q = called_function(node, ctx, WARNINGS_FUNCTIONS)
        if q and not ctx.module_facts.reorderable_call(q):
            return "GB0007"
        return None
