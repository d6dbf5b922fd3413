"""TS119: `match` statements."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class MatchStatement(Rule):
    code = "TS119"
    name = "match-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`match` is not scriptable; use `if`/`elif`'
    doc = RuleDoc(
        what="Flags `match` statements in code `torch.jit.script` compiles.",
        why="Scripting fails with `Match aren't supported`.",
        example="match mode:\n    case 'sum':\n        return x.sum()\n    case _:\n        return x",
        use_instead="if mode == 'sum':\n    return x.sum()\nreturn x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        k = x.dim()
        match k:  # <-
            case 2:
                return x
            case _:
                return x * 2
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        k = x.dim()
        if k == 2:
            return x
        return x * 2
''', check="script-call"),
    )

    def visit_Match(self, node: cst.Match, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)
