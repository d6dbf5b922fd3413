"""TR322: a shape built from a size the trace froze: the traced model fails, or is wrong, for other sizes."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc

_SHAPE_METHODS = frozenset(("view", "reshape", "expand", "new_zeros", "new_ones", "new_empty", "new_full",
                            "unflatten", "narrow", "split"))
_SHAPE_FUNCS = frozenset(("torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand", "torch.randn",
                          "torch.arange", "torch.reshape", "torch.nn.functional.interpolate"))


class FrozenSizeAsShape(Rule):
    code = "TR322"
    call_gate = gate(names=_SHAPE_FUNCS, methods=_SHAPE_METHODS)
    name = "trace-frozen-size-as-shape"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = "`{name}` is frozen by the trace: wrong for other input sizes"
    doc = RuleDoc(
        what=("Flags `view`/`reshape`/`expand`/`new_zeros`/`torch.zeros`/`torch.arange`/`F.interpolate(size=...)` "
              "and similar whose sizes come from a size the trace already turned into a Python number "
              "(`n = int(x.shape[0] / 2)`), with the line where it froze as a related location."),
        why=("The conversion (TR311) gives a Python number, which the traced graph records as a constant. The "
             "shape op takes effect lines later: on an input of another size the traced graph builds the "
             "example's shape and raises (`shape '[2, -1]' is invalid for input of size 16`) or computes on the "
             "wrong slice. The error points at this line, not at the conversion."),
        example="n = int(x.shape[0] / 2)\nreturn x.reshape(n, 2 * x.shape[1])",
        use_instead="n = x.shape[0] // 2  # size arithmetic stays traced\nreturn x.reshape(n, 2 * x.shape[1])",
        fix_safety="No fix: the conversion is what changes (TR311).",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = int(x.shape[0] / 2)
        return x.reshape(n, x.shape[1] * 2)  # <-
''', inputs="[(torch.ones(4, 2),), (torch.ones(8, 2),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = x.shape[0] // 2
        return x.reshape(n, x.shape[1] * 2)
''', inputs="[(torch.ones(4, 2),), (torch.ones(8, 2),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        facts = ctx.facts
        if type(func) is cst.Attribute and func.attr.value in _SHAPE_METHODS:
            if not facts.is_tensor(func.value):
                return
            args = [a.value for a in node.args]
        elif ctx.qualify(func) in _SHAPE_FUNCS:
            args = [a.value for a in node.args if a.keyword is None or a.keyword.value in ("size", "end", "start")]
        else:
            return
        for arg in args:
            frozen = facts.frozen_size(arg)
            if frozen is not None:
                name, value = frozen
                ctx.report(arg, self.message.format(name=name), related=((value, f"`{name}` froze here"),))
                return
