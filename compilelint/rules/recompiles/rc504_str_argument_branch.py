from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.frames import is_frame_entry


class StrArgumentBranch(Rule):
    code = "RC504"
    name = "str-argument-branch"
    family = "recompile"
    targets = ("recompile",)
    severity = "note"
    precision = "medium"
    message = '`{expr}` branches on str argument `{param}`: each value recompiles'
    doc = RuleDoc(
        what=("Flags comparisons (`==`, `!=`, `in`) on a parameter annotated `str` or defaulting to a string, in a "
              "compiled frame's entry (a module's `forward`, a `@torch.compile` function); helpers it calls get "
              "constants from their call sites and are not flagged."),
        why=("Unlike ints and floats, which recompile once and then become dynamic, strings are always specialised. "
             "Verified on 2.13 (backend=\"eager\"): the example below, called with mode \"sum\", \"mean\", "
             "\"avg\", \"max\", gave three recompiles, `triggered by the following guard failure(s): - 0/0: "
             "mode == 'sum'  # if mode == \"sum\":`. A `str` argument that is never "
             "compared or branched on does not recompile (verified: 0), so only branching is flagged. It is a hazard "
             "when callers vary the value; a note, not a warning."),
        example="def forward(self, x, mode: str = \"bilinear\"):\n    if mode == \"bilinear\": ...",
        use_instead="def __init__(self, mode: str = \"bilinear\"):\n    self.mode = mode\ndef forward(self, x):\n    if self.mode == \"bilinear\": ...",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, mode: str = "sum"):
        if mode == "sum":  # <-
            return x.sum(0)
        return x.mean(0)
''', inputs='[(torch.randn(3, 2), m) for m in ("sum", "mean", "avg", "max")]'),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, mode: str = "sum"):
        super().__init__()
        self.mode = mode
    def forward(self, x, tag: str = "sum"):
        if self.mode == "sum":
            return x.sum(0)
        return x.mean(0)
''', inputs='[(torch.randn(3, 2), m) for m in ("sum", "mean", "avg", "max")]'),
    )

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        if not is_frame_entry(ctx):
            return
        if not any(type(c.operator) in (cst.Equal, cst.NotEqual, cst.In, cst.NotIn) for c in node.comparisons):
            return  # `mode is None` guards on None-ness only
        for expr in [node.left] + [c.comparator for c in node.comparisons]:
            if (type(expr) is cst.Name and ctx.facts.param_types.get(expr.value) == "str"
                    and ctx.facts.env.get(expr.value) is Kind.PY):
                ctx.report(node, self.message.format(expr=brief(ctx.code_for(node), 24), param=expr.value))
                return
