"""TR307: `and` / `or` / `not` applied to tensors outside an if/while test."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.rules.trace._util import in_condition


class TensorBoolOps(Rule):
    code = "TR307"
    name = "trace-frozen-tensor-bool-op"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '`{op}` on a tensor: the trace freezes its truth; use `&`, `|`, `~`'
    doc = RuleDoc(
        what="Flags `a and b`, `a or b` and `not a` where an operand is a tensor, outside if/while tests.",
        why=("Python's boolean operators call `bool()` on a tensor: tracing records a constant and picks one "
             "operand for good (TracerWarning). The result no longer depends on the input."),
        example="valid = (x > 0).any() and (x < 1).all()\nreturn x * valid",
        use_instead="valid = (x > 0).any() & (x < 1).all()\nreturn x * valid",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        valid = (x > 0).any() and (x < 1).all()  # <-
        return x * valid
''', inputs="[(torch.tensor([0.5, 0.2]),), (torch.tensor([-0.5, 2.0]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        empty = not (x > 0).any()  # <-
        return x + empty
''', inputs="[(torch.tensor([0.5, 0.2]),), (torch.tensor([-0.5, -2.0]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        valid = (x > 0).any() & (x < 1).all()
        empty = ~(x > 0).any()
        return x * valid + empty
''', inputs="[(torch.tensor([0.5, 0.2]),), (torch.tensor([-0.5, 2.0]),)]"),
    )

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx) -> None:  # noqa: ANN001
        if in_condition(ctx) or type(ctx.parent) is cst.BooleanOperation:
            return
        facts = ctx.facts
        if any(facts.kind(side) is Kind.TENSOR and not facts.is_assumed_tensor(side) for side in (node.left, node.right)):
            op = "and" if type(node.operator) is cst.And else "or"
            ctx.report(node, self.message.format(op=op))

    def visit_UnaryOperation(self, node: cst.UnaryOperation, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.Not and not in_condition(ctx):
            if ctx.facts.kind(node.expression) is Kind.TENSOR and not ctx.facts.is_assumed_tensor(node.expression):
                ctx.report(node, self.message.format(op="not"))
