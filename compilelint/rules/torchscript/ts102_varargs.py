"""TS102: `*args` / `**kwargs` in a function TorchScript compiles."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class VarargsInScript(Rule):
    code = "TS102"
    name = "varargs-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`*args`/`**kwargs` are not scriptable; list the parameters'
    doc = RuleDoc(
        what="Flags `*args` and `**kwargs` parameters of functions and methods that `torch.jit.script` compiles.",
        why="TorchScript needs a fixed signature: scripting fails with `Compiled functions can't take "
            "variable number of arguments`. (torch.export accepts them.)",
        example="def forward(self, x, *extra):\n    return x",
        use_instead="def forward(self, x, extra: List[torch.Tensor]):\n    return x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, *args):  # <-
        return x
'''),
        Example('''
import torch
def helper(x, **kwargs):  # <-
    return x * 2
class M(torch.nn.Module):
    def forward(self, x):
        return helper(x)
'''),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x, extra: List[torch.Tensor]):
        return x
''', inputs="[(torch.randn(2, 3), [torch.randn(2)])]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return  # nested functions are TS109's
        for star in (node.params.star_arg, node.params.star_kwarg):
            if type(star) is cst.Param:
                ctx.report(star)
