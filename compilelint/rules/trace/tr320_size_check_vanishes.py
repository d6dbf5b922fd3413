"""TR320: input validation on tensor sizes runs once, while tracing, and is not in the traced graph."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.paths import only_raises, traced_size_operand

_ASSERTS = {"torch._assert", "torch._assert_async"}


class SizeCheckVanishes(Rule):
    code = "TR320"
    call_gate = gate(names=_ASSERTS)
    name = "trace-size-check-vanishes"
    family = "trace"
    targets = ("trace",)
    severity = "note"
    message = "size check runs only while tracing: the traced graph never checks it"
    doc = RuleDoc(
        what=("Flags input validation on tensor sizes in traced code: an `if` on a size whose body only raises or "
              "warns, `assert` on a size, and `torch._assert` of a size test. Rank checks (`x.dim() != 4`) are "
              "not flagged: the tracer sees ranks as plain ints."),
        why=("While tracing, a size is a traced value: the comparison is turned into a Python bool "
             "(TracerWarning), the check passes for the example, and nothing of it is recorded. The traced model "
             "accepts inputs the eager model rejects and fails later, or computes on them. A note, not a "
             "warning: valid inputs get the same result."),
        example=("if x.shape[-1] % self.patch != 0:\n"
                 "    raise ValueError(f\"width {x.shape[-1]} is not a multiple of {self.patch}\")"),
        use_instead=("# validate before calling the traced module (or script this check):\n"
                     "check_input(x)\n"
                     "y = traced(x)"),
        fix_safety="No fix: where to validate is the caller's choice.",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.shape[-1] % 4 != 0:  # <-
            raise ValueError("width must be a multiple of 4")
        return x.reshape(x.shape[0], -1, 4).sum(-1)
''', inputs="[(torch.randn(2, 8),), (torch.randn(2, 12),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, y):
        assert x.shape[0] == y.shape[0], "batch sizes differ"  # <-
        return x + y.sum()
''', inputs="[(torch.randn(2, 3), torch.randn(2, 3)), (torch.randn(4, 3), torch.randn(4, 3))]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() != 2:
            raise ValueError("expected a 2-d input")
        return x.reshape(x.shape[0], -1, 4).sum(-1)
''', inputs="[(torch.randn(2, 8),), (torch.randn(2, 12),)]"),
    )

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        if only_raises(node) and traced_size_operand(node.test, ctx.facts, ctx.function) is not None:
            ctx.report(node.test)

    def visit_Assert(self, node: cst.Assert, ctx) -> None:  # noqa: ANN001
        if traced_size_operand(node.test, ctx.facts, ctx.function) is not None:
            ctx.report(node.test)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if (node.args and ctx.qualify(node.func) in _ASSERTS
                and traced_size_operand(node.args[0].value, ctx.facts, ctx.function) is not None):
            ctx.report(node.args[0].value)
