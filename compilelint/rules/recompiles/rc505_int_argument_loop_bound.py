from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.frames import is_frame_entry


class IntArgumentLoopBound(Rule):
    code = "RC505"
    call_gate = gate(bare={"range"})
    name = "int-argument-loop-bound"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`{expr}` loops over int argument `{param}`: each value recompiles'
    doc = RuleDoc(
        what="Flags `range(k)` where `k` is a parameter annotated `int` (or defaulting to an int) in a compiled frame's entry (a module's `forward`, a `@torch.compile` function).",
        why=("An int argument used only in arithmetic recompiles once and then becomes a dynamic SymInt (verified on "
             "2.13: five values, one recompile). Used as a loop count, it is specialised: five values 1..5 gave four "
             "recompiles, `triggered by the following guard failure(s): - 0/0: steps == 1  # for _ in range(steps):`."),
        example="def forward(self, x, steps: int):\n    for _ in range(steps):\n        x = self.block(x)",
        use_instead="def __init__(self, steps: int):\n    self.steps = steps  # fixed per module\n",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
    def forward(self, x, steps: int = 2):
        for _ in range(steps):  # <-
            x = torch.tanh(self.lin(x))
        return x
''', inputs="[(torch.randn(2, 3), k) for k in (1, 2, 3, 4, 5)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, steps: int = 3):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.steps = steps
    def forward(self, x):
        for _ in range(self.steps):
            x = torch.tanh(self.lin(x))
        return x
''', inputs="[(torch.randn(2, 3),) for k in (1, 2, 3, 4, 5)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (type(func) is cst.Name and func.value == "range" and node.args):
            return
        if not is_frame_entry(ctx):
            return
        for a in node.args:
            for name in _names(a.value):
                if ctx.facts.param_types.get(name) == "int" and ctx.facts.env.get(name) is Kind.PY:
                    ctx.report(node, self.message.format(expr=brief(ctx.code_for(node), 24), param=name))
                    return


def _names(expr: cst.BaseExpression) -> list[str]:
    """The bare names an int expression is built from (`k`, `k + 1`, `2 * k`)."""
    if type(expr) is cst.Name:
        return [expr.value]
    if type(expr) is cst.BinaryOperation:
        return _names(expr.left) + _names(expr.right)
    return []
