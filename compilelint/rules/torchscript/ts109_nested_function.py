"""TS109: nested function definitions (closures)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class NestedFunction(Rule):
    code = "TS109"
    name = "nested-function-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'nested function `{name}` is not scriptable; make it a method'
    doc = RuleDoc(
        what="Flags `def` statements nested inside code `torch.jit.script` compiles.",
        why="Scripting fails with `function definitions aren't supported`, even when the inner function is "
            "never called.",
        example="def forward(self, x):\n    def act(t):\n        return t.clamp(min=0)\n    return act(x)",
        use_instead="def act(t):\n    return t.clamp(min=0)\n\nclass M(nn.Module):\n    def forward(self, x):\n        return act(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        def act(t):  # <-
            return t.clamp(min=0)
        return act(x)
'''),
    )
    good = (
        Example('''
import torch
def act(t):
    return t.clamp(min=0)
class M(torch.nn.Module):
    def forward(self, x):
        return act(x)
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None and node is not ctx.function:
            ctx.report(node.name, self.message.format(name=node.name.value))
