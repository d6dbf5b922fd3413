from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class GlobalMutated(Rule):
    code = "RC508"
    construct = Construct.PYTHON_STATE_UPDATE
    name = "global-state-mutated"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'compiled code rebinds global `{name}` ({type}): each change recompiles'
    doc = RuleDoc(
        what="Flags assignments to a `global` name bound at module level to an int, str or bool, inside compiled code.",
        why=("Globals read by compiled code become guards (`G['STEP'] == 3`). A counter bumped on every call fails "
             "its guard on every call. Verified on 2.13 (backend=\"eager\"): four calls of a function doing "
             "`global G; G += 1` gave three recompiles (`triggered by the following guard failure(s): - 0/0: G['CALLS'] == 0  # CALLS += 1`), even when `G` is not "
             "used in tensor math. A module global int changed between calls by other code recompiles the same way "
             "(five values, four recompiles); a float recompiles once, then becomes dynamic."),
        example="STEP = 0\ndef forward(self, x):\n    global STEP\n    STEP += 1",
        use_instead="self.register_buffer(\"step\", torch.zeros((), dtype=torch.long))\n...\nself.step += 1",
    )
    bad = (
        Example('''
import torch
CALLS = 0
class M(torch.nn.Module):
    def forward(self, x):
        global CALLS
        CALLS += 1  # <-
        return x * 2
''', inputs="[(torch.randn(3),) for _ in range(4)]"),
    )
    good = (
        Example('''
import torch
CALLS = 0
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.long))
    def forward(self, x):
        self.calls += 1
        return x * 2
''', inputs="[(torch.randn(3),) for _ in range(4)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._globals: set[str] = set()

    def visit_Global(self, node: cst.Global, ctx) -> None:  # noqa: ANN001
        if not hasattr(self, "_globals"):
            self._globals = set()
        self._globals.update(n.name.value for n in node.names)

    def _check(self, target: cst.BaseExpression, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        if type(target) is cst.Name and target.value in getattr(self, "_globals", ()):
            kind = ctx.module_globals.literal_types.get(target.value, "")
            if kind in ("int", "str", "bool"):
                ctx.report(node, self.message.format(name=target.value, type=kind))

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._check(node.target, node, ctx)

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        for t in node.targets:
            self._check(t.target, node, ctx)
