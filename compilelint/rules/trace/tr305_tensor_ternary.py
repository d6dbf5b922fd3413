"""TR305: a conditional expression (`a if cond else b`) on a tensor value."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class TensorTernary(Rule):
    code = "TR305"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "trace-frozen-tensor-ternary"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = 'tensor condition in `a if c else b`: the trace keeps one branch'
    doc = RuleDoc(
        what="Flags conditional expressions whose condition reads tensor data, in traced code.",
        why=("The condition is converted to a Python bool during tracing (TracerWarning) and only the chosen "
             "operand is recorded: the traced model applies the example's choice to every input."),
        example="scale = x * 2 if x.max() > 1 else x",
        use_instead="scale = torch.where(x.max() > 1, x * 2, x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x / x.abs().max() if x.abs().max() > 1 else x  # <-
''', inputs="[(torch.tensor([4., -2.]),), (torch.tensor([0.5, 0.25]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        m = x.abs().max()
        return torch.where(m > 1, x / m, x)
''', inputs="[(torch.tensor([4., -2.]),), (torch.tensor([0.5, 0.25]),)]"),
    )

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        if ctx.facts.tests_tensor_truth(node.test):
            ctx.report(node.test)
