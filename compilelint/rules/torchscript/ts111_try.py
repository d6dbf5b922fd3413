"""TS111: `try` / `except` / `finally`."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class TryInScript(Rule):
    code = "TS111"
    name = "try-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`try` is not scriptable; check the condition explicitly'
    doc = RuleDoc(
        what="Flags `try` statements in code `torch.jit.script` compiles.",
        why="Scripting fails with `try blocks aren't supported`, whatever the handlers are. (Dynamo "
            "compiles `try` in 2.13; TorchScript never did.)",
        example="try:\n    y = self.proj(x)\nexcept RuntimeError:\n    y = x",
        use_instead="if x.size(-1) == self.proj.in_features:\n    y = self.proj(x)\nelse:\n    y = x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        try:  # <-
            y = x * 2
        except RuntimeError:
            y = x
        return y
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        try:  # <-
            y = x * 2
        finally:
            pass
        return y
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() == 2:
            y = x * 2
        else:
            y = x
        return y
''', check="script-call"),
    )

    def visit_Try(self, node: cst.Try, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)

    def visit_TryStar(self, node: cst.TryStar, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node)
