"""GB405 print-graph-break: Flags `print(...)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule, remove_statement_fix
from compilelint.semantic.calls import called_function


class PrintGraphBreak(CallBreakRule):
    code = 'GB405'
    name = 'print-graph-break'
    call_gate = gate(names={"print"})
    loop_fix = "remove the print"
    gb_id = 'GB0059'
    severity = "warning"
    message = '`print()` breaks the graph; print outside compiled code'
    version_note = ('Silent in a file that adds `print` to torch._dynamo.config.reorderable_logging_functions (Dynamo then reorders the call after the graph; verified 2.13).')
    has_fix = True
    doc = RuleDoc(
        what='Flags `print(...)` in compiled code.',
        why='Dynamo cannot trace the builtin `print` (GB0059): it splits the graph before the call and resumes after it. Debug prints left in `forward` cost a graph break per call, and inside a loop the whole frame runs eagerly.',
        example="print('x', x.shape)\nreturn self.proj(x)",
        use_instead='return self.proj(x)   # or: torch._dynamo.config.reorderable_logging_functions.add(print)',
        fix_safety=("Unsafe: the output the print gave is gone (it is replaced by `pass`)."),
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        print("input", x.shape)  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        q = called_function(node, ctx, {"print"})
        if q and not ctx.module_facts.reorderable_call("print"):
            return "GB0059"
        return None

    def fix_for(self, node, ctx):  # noqa: ANN001
        return remove_statement_fix(node, ctx, 'Remove the print() call')
