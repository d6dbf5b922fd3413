"""TS118: assignment expressions (`:=`)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class Walrus(Rule):
    code = "TS118"
    name = "walrus-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`:=` is not scriptable; assign on its own line'
    doc = RuleDoc(
        what="Flags the walrus operator `:=` in code `torch.jit.script` compiles.",
        why="Scripting fails with `NamedExpr aren't supported`.",
        example="if (n := x.dim()) > 2:",
        use_instead="n = x.dim()\nif n > 2:",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if (n := x.dim()) > 1:  # <-
            return x * n
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = x.dim()
        if n > 1:
            return x * n
        return x
''', check="script-call"),
    )

    def visit_NamedExpr(self, node: cst.NamedExpr, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)
