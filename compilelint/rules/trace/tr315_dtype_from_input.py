"""TR315: `dtype=x.dtype` / `.to(x.dtype)` / `.to(x)`: the example's dtype is baked into the trace."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class DtypeFromInput(Rule):
    code = "TR315"
    name = "trace-frozen-input-dtype"
    family = "trace"
    targets = ("trace",)
    # A note, not a warning: it only matters when the traced model later runs at another dtype than the
    # example's, and models are usually traced at the dtype they are deployed with.
    severity = "note"
    # Opt-in: the example's dtype is frozen, but models are traced at the dtype they run at, and on the
    # real-world models (benchmarks/realworld) torch never showed it: 1 of 38 checked claims matched an event,
    # and that one a TracerWarning about torch.as_tensor on the same line (docs/realworld.md).
    opt_in = True
    message = "{what}: the trace freezes the example's dtype"
    doc = RuleDoc(
        what=("Flags tensor creation with `dtype=x.dtype` and casts `.to(x.dtype)` / `.to(x)` where `x` is a "
              "tensor, in traced code."),
        why=("The tracer sees `x.dtype` as a Python value and stores it in the graph. Ops that derive the dtype "
             "from a tensor argument (`type_as`, `new_*`, `*_like`) are recorded with the tensor instead and "
             "follow the runtime input."),
        example="grid = torch.zeros(h, w, dtype=x.dtype)",
        use_instead="grid = x.new_zeros(h, w)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return torch.zeros(x.shape, dtype=x.dtype)  # <-
''', inputs="[(torch.randn(2, 3),), (torch.randn(2, 3, dtype=torch.float64),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[-1]).to(x.dtype)  # <-
        return pos
''', inputs="[(torch.randn(2, 3),), (torch.randn(2, 3, dtype=torch.float64),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[-1]).type_as(x)
        return x.new_zeros(x.shape) + torch.zeros_like(x) + pos
''', inputs="[(torch.randn(2, 3),), (torch.randn(2, 3, dtype=torch.float64),)]"),
    )

    def _from_tensor(self, expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        return (type(expr) is cst.Attribute and expr.attr.value == "dtype"
                and ctx.facts.is_tensor(expr.value))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        name = ctx.qualify(func) or ""
        if name.startswith("torch.") or type(func) is cst.Attribute and func.attr.value != "to":
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "dtype" and self._from_tensor(arg.value, ctx):
                    ctx.report(node, self.message.format(what="`dtype=` taken from an input tensor"))
                    return
            return
        if type(func) is cst.Attribute and func.attr.value == "to" and ctx.facts.is_tensor(func.value):
            first = node.args[0].value if node.args and node.args[0].keyword is None else None
            if first is not None and (self._from_tensor(first, ctx) or ctx.facts.is_known_tensor(first)):
                ctx.report(node, self.message.format(what="`.to()` with an input tensor's dtype"))
