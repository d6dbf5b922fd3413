"""TS115: `**mapping` in a call."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class KwargsExpansion(Rule):
    code = "TS115"
    name = "kwargs-expansion-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`**mapping` in a call is not scriptable; pass each argument'
    doc = RuleDoc(
        what="Flags `**` argument expansion in calls in code `torch.jit.script` compiles.",
        why="Scripting fails with `keyword-arg expansion is not supported`.",
        example="return self.head(**feats)",
        use_instead='return self.head(a=feats["a"], b=feats["b"])',
    )
    bad = (
        Example('''
import torch
def combine(a: torch.Tensor, b: torch.Tensor):
    return a + b
class M(torch.nn.Module):
    def forward(self, x):
        feats = {"a": x, "b": x}
        return combine(**feats)  # <-
'''),
    )
    good = (
        Example('''
import torch
def combine(a: torch.Tensor, b: torch.Tensor):
    return a + b
class M(torch.nn.Module):
    def forward(self, x):
        feats = {"a": x, "b": x}
        return combine(a=feats["a"], b=feats["b"])
''', check="script-call"),
    )

    def visit_Arg(self, node: cst.Arg, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None and node.star == "**":
            ctx.report(node)
