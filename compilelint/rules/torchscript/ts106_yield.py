"""TS106: generators (`yield`)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class YieldInScript(Rule):
    code = "TS106"
    name = "yield-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'generator (`yield`) is not scriptable; return a list'
    doc = RuleDoc(
        what="Flags `yield` / `yield from` in code `torch.jit.script` compiles.",
        why="Scripting fails with `Yield aren't supported`.",
        example="def parts(self, x):\n    yield x\n    yield x * 2",
        use_instead="def parts(self, x) -> List[torch.Tensor]:\n    return [x, x * 2]",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        for t in self.parts(x):
            x = x + t
        return x
    def parts(self, x):
        yield x  # <-
        yield x * 2  # <-
'''),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x):
        for t in self.parts(x):
            x = x + t
        return x
    def parts(self, x) -> List[torch.Tensor]:
        return [x, x * 2]
''', check="script-call"),
    )

    def visit_Yield(self, node: cst.Yield, ctx) -> None:  # noqa: ANN001
        ctx.report(node)
