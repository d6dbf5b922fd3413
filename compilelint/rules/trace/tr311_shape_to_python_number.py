"""TR311: a shape turned into a plain Python number (int(), float(), math.*, max/min, round)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc

_BUILTINS = {"int", "float", "round", "max", "min"}


class ShapeToPythonNumber(Rule):
    code = "TR311"
    call_gate = gate(heads={"math"}, bare=_BUILTINS)
    name = "trace-frozen-shape-arithmetic"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = '`{fn}()` of a tensor size: the trace freezes the number'
    doc = RuleDoc(
        what=("Flags `int()`, `float()`, `round()`, `max()`/`min()` and `math.*` calls on values read from a "
              "tensor's shape, in traced code."),
        why=("`x.view(x.size(0), -1)`, `x.size(-1) ** 0.5` and `n // 2` are recorded with the input's real "
             "sizes. Converting a size with a Python builtin (or comparing it inside max/min) leaves the tracer: "
             "TracerWarning, and the example's size is baked in."),
        example="scale = math.sqrt(q.size(-1))\nreturn q @ k.transpose(-2, -1) / scale",
        use_instead="scale = q.size(-1) ** 0.5\nreturn q @ k.transpose(-2, -1) / scale",
    )
    bad = (
        Example('''
import math
import torch
class M(torch.nn.Module):
    def forward(self, q, k):
        scale = math.sqrt(q.size(-1))  # <-
        return q @ k.transpose(-2, -1) / scale
''', inputs="[(torch.randn(2, 4), torch.randn(3, 4)), (torch.randn(2, 9), torch.randn(3, 9))]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = int(x.shape[0] * 0.5)  # <-
        return x[:n]
''', inputs="[(torch.randn(4, 3),), (torch.randn(8, 3),)]"),
    )
    good = (
        Example('''
import math
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 4
    def forward(self, q, k):
        scale = q.size(-1) ** 0.5 + math.log(self.dim) * 0
        half = q.shape[0] // 2
        return (q @ k.transpose(-2, -1) / scale)[half:]
''', inputs="[(torch.randn(2, 4), torch.randn(3, 4)), (torch.randn(4, 9), torch.randn(3, 9))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Name and func.value in _BUILTINS:
            fn = func.value
        else:
            name = ctx.qualify(func) or ""
            if not name.startswith("math."):
                return
            fn = name
        facts = ctx.facts
        args = [a.value for a in node.args if a.keyword is None]
        if not args or not any(facts.is_shape_dependent(a) for a in args):
            return
        if any(facts.reads_dynamic_size(a) for a in args):
            return  # TR304
        if not any(facts.is_shape_dependent(a) and facts.reads_tensor_size(a) for a in args):
            return
        anc = ctx.ancestors
        outer = anc[-2] if len(anc) >= 2 and type(anc[-1]) is cst.Arg else None
        if type(outer) is cst.Call and (
                (type(outer.func) is cst.Name and outer.func.value in _BUILTINS)
                or (ctx.qualify(outer.func) or "").startswith("math.")):
            return  # reported once, at the outer conversion
        ctx.report(node, self.message.format(fn=fn))
