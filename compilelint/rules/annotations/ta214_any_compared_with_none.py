"""TA214: an `Any` parameter compared with None, which TorchScript decides as "not None" (a wrong result)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import is_none
from compilelint.rules.base import Example, Rule, RuleDoc


class AnyComparedWithNone(Rule):
    code = "TA214"
    name = "any-compared-with-none"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`{param}: Any` compared with None is decided when scripted'
    doc = RuleDoc(
        what="Flags `x is None` / `x is not None` where `x` is a parameter annotated `Any` in a compiled function.",
        why=("TorchScript scripts the function without complaint, but it treats an `Any` as a value that is not "
             "None and folds the test to a constant: called with `None`, the scripted function runs the branch "
             "eager Python skips and returns something else, with no error."),
        example="def forward(self, x, scale: Any = None):\n    if scale is None:\n        return x\n    return x * 2",
        use_instead=("def forward(self, x, scale: Optional[float] = None):\n    if scale is None:\n        return x\n"
                     "    return x * 2"),
    )
    bad = (
        Example('''
import torch
from typing import Any
class M(torch.nn.Module):
    def forward(self, x, scale: Any = None):
        if scale is None:  # <-
            return x
        return x * 2
''', inputs="[(torch.ones(3), None)]", check="script-wrong"),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, scale: Optional[float] = None):
        if scale is None:
            return x
        return x * scale
''', inputs="[(torch.ones(3), None), (torch.ones(3), 2.0)]", check="script-wrong"),
    )

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or len(node.comparisons) != 1 or type(node.left) is not cst.Name:
            return
        op = node.comparisons[0]
        if type(op.operator) not in (cst.Is, cst.IsNot) or not is_none(op.comparator):
            return
        name = node.left.value
        params = fn.params
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if p.name.value == name and p.annotation is not None and \
                    qualify(p.annotation.annotation, ctx.facts.aliases) == "typing.Any":
                ctx.report(node, self.message.format(
                    param=name, op="is" if type(op.operator) is cst.Is else "is not"))
                return
