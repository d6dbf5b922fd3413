"""GB430 copy-tensor-graph-break: Flags `copy.copy(t)` of a tensor"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, called_function


class CopyTensorGraphBreak(CallBreakRule):
    code = 'GB430'
    name = 'copy-tensor-graph-break'
    call_gate = gate(names={"copy.copy"})
    loop_fix = "use .clone()"
    gb_id = 'GB0208'
    older_gb_ids = {"2.11": "GB0007"}
    version_note = ('torch 2.11 breaks the graph on the same line with GB0007 (Attempted to call function marked as skipped).')
    severity = "warning"
    message = '`copy.copy` of a tensor breaks the graph; use `.clone()`'
    doc = RuleDoc(
        what='Flags `copy.copy(t)` of a tensor in compiled code.',
        why='Dynamo cannot trace the copy protocol of tensors (GB0208) and splits the graph.',
        example='y = copy.copy(x)',
        use_instead='y = x.clone()',
    )
    bad = (
        Example('''import torch
import copy

class M(torch.nn.Module):
    def forward(self, x):
        y = copy.copy(x)  # <-
        return x * y
'''),
    )
    good = (
        Example('''import torch
import copy

class M(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        return x * y
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if called_function(node, ctx, {"copy.copy"}):
            arg = argument(node, 0)
            if arg is not None and ctx.facts.is_tensor(arg):
                return "GB0208"
        return None
