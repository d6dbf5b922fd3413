"""TR303: `range(x.size(0))` / `range(len(x))` loops are unrolled by the trace."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


def range_over_size(call: cst.BaseExpression, facts) -> bool:  # noqa: ANN001
    if not (type(call) is cst.Call and type(call.func) is cst.Name and call.func.value == "range"):
        return False
    if any(facts.reads_dynamic_size(a.value) for a in call.args):
        return False  # TR304: the size comes from tensor data
    return any(facts.is_shape_dependent(a.value) and facts.reads_tensor_size(a.value) for a in call.args)


class RangeOverShape(Rule):
    code = "TR303"
    construct = Construct.LOOP_OVER_TENSOR_SIZE
    name = "trace-unrolled-shape-loop"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = '`range()` over a tensor size: the trace unrolls the loop'
    doc = RuleDoc(
        what="Flags `for i in range(n)` loops (and comprehensions) where `n` comes from a tensor's shape.",
        why=("Tracing runs the Python loop once and records each iteration's ops: the loop count becomes the "
             "example's size. A batch of another size runs the wrong number of iterations, silently (no "
             "TracerWarning is emitted for this)."),
        example="return torch.stack([x[i] * 2 for i in range(x.size(0))])",
        use_instead="return x * 2",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        outs = []
        for i in range(x.size(0)):  # <-
            outs.append(x[i].softmax(-1))
        return torch.stack(outs)
''', inputs="[(torch.randn(2, 3),), (torch.randn(4, 3),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        b, n = x.shape
        return torch.stack([x[i].cumsum(0) for i in range(b)])  # <-
''', inputs="[(torch.randn(2, 3),), (torch.randn(5, 3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = 3
    def forward(self, x):
        outs = []
        for i in range(self.heads):
            outs.append(x * i)
        return x.softmax(-1) + torch.stack(outs).sum(0)
''', inputs="[(torch.randn(2, 3),), (torch.randn(4, 3),)]"),
    )

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        if range_over_size(node.iter, ctx.facts):
            ctx.report(node.iter)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        if range_over_size(node.iter, ctx.facts):
            ctx.report(node.iter)
