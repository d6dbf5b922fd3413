"""TS116: sets (literals, comprehensions, `set()`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc


class SetInScript(Rule):
    code = "TS116"
    call_gate = gate(bare={"set", "frozenset"})
    name = "set-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = False  # a fix is offered only for some forms (see `what`)
    message = '{form} is not scriptable (no set type); use a list'
    doc = RuleDoc(
        what="Flags set literals, set comprehensions and `set(...)` calls in code `torch.jit.script` compiles. A fix (list instead of set) is offered for set literals in `in` tests.",
        why="Scripting fails with `Set aren't supported` / `SetComp aren't supported`, and `set(...)` is not "
            "a known builtin.",
        example="if x.dim() in {3, 4}:",
        use_instead="if x.dim() in [3, 4]:",
        fix_safety=("Safe: a list holds the same members for an `in` test of literals; only the lookup changes "
                    "from hashing to a scan."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() in {2, 3}:  # <-
            return x
        return x * 2
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        seen = {i for i in range(3)}  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        seen = set([1, 2])  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
from typing import Dict
class M(torch.nn.Module):
    def forward(self, x):
        seen: Dict[int, bool] = {}
        seen[x.dim()] = True
        if x.dim() in [2, 3]:
            return x
        return x * 2
''', check="script-call"),
    )

    def visit_Set(self, node: cst.Set, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        fix = None
        if type(ctx.parent) is cst.ComparisonTarget and type(ctx.parent.operator) in (cst.In, cst.NotIn):
            fix = (node, cst.List(elements=node.elements), "use a list for the membership test")
        ctx.report(node, self.message.format(form="a set literal"), fix=fix)

    def visit_SetComp(self, node: cst.SetComp, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None:
            ctx.report(node, self.message.format(form="a set comprehension"))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if (ctx.function is not None and type(node.func) is cst.Name and node.func.value in ("set", "frozenset")
                and node.func.value not in ctx.facts.env):
            ctx.report(node, self.message.format(form=f"`{node.func.value}(...)`"))
