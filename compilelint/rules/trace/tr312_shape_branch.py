"""TR312: Python control flow on a tensor size: the trace keeps the example's branch."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.rules.trace._util import in_condition
from compilelint.semantic.paths import only_raises, traced_size_operand


class ShapeBranch(Rule):
    code = "TR312"
    name = "trace-frozen-shape-branch"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = '`{kw}` on a tensor size: the trace keeps one branch'
    doc = RuleDoc(
        what=("Flags `if`/`while`/conditional expressions that test a tensor's size (`x.shape[0] > 1`, "
              "`len(t) == 0`, `(n := x.shape[0]) > 2`), and `and`/`or` on a size (`x.shape[0] or 1`). Rank checks (`x.dim() == 4`, `x.ndim`, `len(x.shape)`) are static configuration, and an `if` "
              "whose body only raises is input validation: neither is flagged. Nor is a size test behind a flag that is "
              "off by default (`self.use_tiling and h > t`, `if antialias:` with `antialias=False`): the default "
              "configuration never reads the size."),
        why=("Comparing a traced size gives a Python bool (TracerWarning) and only one branch is recorded. "
             "The traced model works for the example's shape and silently does the wrong thing for others."),
        example="if x.size(0) == 1:\n    x = x.expand(2, -1)",
        use_instead="x = x.expand(max_batch, -1)  # or one path for every size",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 2:  # <-
            x = x - x.mean(0, keepdim=True)
        return x
''', inputs="[(torch.randn(3, 4),), (torch.randn(2, 4),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if (n := x.shape[0]) > 2:  # <-
            x = x / n
        return x
''', inputs="[(torch.randn(3, 4),), (torch.randn(2, 4),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        rows = x.shape[0] and x.shape[0] - 1  # <-
        return x[:rows]
''', inputs="[(torch.randn(3, 4),), (torch.randn(1, 4),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.center = True
    def forward(self, x):
        if x.dim() == 2 and self.center:
            x = x - x.mean(0, keepdim=True)
        return x
''', inputs="[(torch.randn(3, 4),), (torch.randn(2, 4),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.use_tiling = False
    def enable_tiling(self):
        self.use_tiling = True
    def forward(self, x):
        if self.use_tiling and x.shape[0] > 2:
            x = x - x.mean(0, keepdim=True)
        return x
''', inputs="[(torch.randn(3, 4),), (torch.randn(2, 4),)]"),
    )

    def _check(self, test: cst.BaseExpression, ctx, kw: str) -> None:  # noqa: ANN001
        if traced_size_operand(test, ctx.facts, ctx.function) is not None:
            ctx.report(test, self.message.format(kw=kw))

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        if only_raises(node):
            return  # input validation: TR320
        self._check(node.test, ctx, "if")

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._check(node.test, ctx, "while")

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._check(node.test, ctx, "conditional expression")

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx) -> None:  # noqa: ANN001
        # `n = x.shape[0] or 1` outside a condition: `or`/`and` take the size's truth value (a condition's own
        # `and`/`or` is reported with the condition)
        if in_condition(ctx) or type(ctx.parent) in (cst.BooleanOperation, cst.UnaryOperation):
            return
        if traced_size_operand(node.left, ctx.facts, ctx.function) is not None:
            ctx.report(node, self.message.format(kw="or" if type(node.operator) is cst.Or else "and"))
