from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class TensorValueBranch(Rule):
    code = "TR301"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "trace-frozen-tensor-branch"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '{kw} on a tensor value: the trace keeps one branch; use `torch.where`'
    doc = RuleDoc(
        what=("Flags `if`/`while` statements and comprehension filters whose condition reads tensor data, in code "
              "that is traced."),
        why=("Tracing runs the function once and records tensor operations; Python control flow is resolved "
             "for that one input and frozen. The traced model then takes the same branch for every input."),
        example="if scores.max() > 0.5:\n    return boxes * 2\nreturn boxes",
        use_instead="return torch.where(scores.max() > 0.5, boxes * 2, boxes)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # <-
            return x * 2
        return x
''', inputs="[(torch.ones(3),), (-torch.ones(3),)]"),
    )
    bad = bad + (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, boxes):
        big = [b for b in boxes if (b[2:] - b[:2]).prod() > 4]  # <-
        return torch.stack(big).sum(0)
''', inputs="[(torch.tensor([[0., 0., 1., 1.], [0., 0., 3., 3.]]),), (torch.tensor([[0., 0., 4., 4.], [0., 0., 9., 9.]]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return torch.where(x.sum() > 0, x * 2, x)
''', inputs="[(torch.ones(3),), (-torch.ones(3),)]"),
    )

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        if ctx.facts.tests_tensor_truth(node.test):
            ctx.report(node.test, self.message.format(kw="`if`"))

    def visit_CompIf(self, node: cst.CompIf, ctx) -> None:  # noqa: ANN001
        # `[b for b in boxes if b.sum() > 0]`: a filter is an `if` per element
        if ctx.facts.tests_tensor_truth(node.test):
            ctx.report(node.test, self.message.format(kw="comprehension `if`"))

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        if ctx.facts.tests_tensor_truth(node.test):
            ctx.report(node.test, self.message.format(kw="`while`"))
