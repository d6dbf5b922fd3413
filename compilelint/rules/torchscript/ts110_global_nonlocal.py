"""TS110: `global` and `nonlocal` statements."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class GlobalNonlocal(Rule):
    code = "TS110"
    name = "global-statement-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{kw}` is not scriptable; keep the state on the module'
    doc = RuleDoc(
        what="Flags `global` and `nonlocal` statements in code `torch.jit.script` compiles.",
        why="Scripting fails with `global variables aren't supported` (`nonlocal` only occurs in nested "
            "functions, which do not script either).",
        example="def forward(self, x):\n    global CALLS\n    CALLS += 1",
        use_instead="self.register_buffer('calls', torch.zeros((), dtype=torch.long))\n...\nself.calls += 1",
    )
    bad = (
        Example('''
import torch
CALLS = 0
class M(torch.nn.Module):
    def forward(self, x):
        global CALLS  # <-
        CALLS += 1
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
    def forward(self, x):
        self.calls += 1
        return x
''', check="script-call"),
    )

    def visit_Global(self, node: cst.Global, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node, self.message.format(kw="global"))

    def visit_Nonlocal(self, node: cst.Nonlocal, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node, self.message.format(kw="nonlocal"))
