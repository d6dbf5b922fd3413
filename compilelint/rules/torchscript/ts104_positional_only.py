"""TS104: positional-only parameters (`/`)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class PositionalOnly(Rule):
    code = "TS104"
    name = "positional-only-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = 'positional-only parameters (`/`) are not scriptable'
    doc = RuleDoc(
        what="Flags the `/` marker of positional-only parameters in code `torch.jit.script` compiles.",
        why="TorchScript drops the parameters before `/`: a method fails with `methods must have a self "
            "argument`, a function with `undefined value x`.",
        example="def forward(self, x, /):",
        use_instead="def forward(self, x):",
        fix_safety=("Unsafe: removing the `/` changes the signature: the parameters before it can then be passed "
                    "by keyword, so renaming them later breaks callers."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, /):  # <-
        return x * 2
'''),
        Example('''
import torch
def scale(x, /, y: int):  # <-
    return x * y
class M(torch.nn.Module):
    def forward(self, x):
        return scale(x, 2)
'''),
    )
    good = (
        Example('''
import torch
def scale(x, y: int):
    return x * y
class M(torch.nn.Module):
    def forward(self, x):
        return scale(x, 2)
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return
        params = node.params
        if type(params.posonly_ind) is cst.ParamSlash:
            fixed = params.with_changes(params=[*params.posonly_params, *params.params], posonly_params=[],
                                        posonly_ind=cst.MaybeSentinel.DEFAULT)
            ctx.report(params.posonly_ind, fix=(params, fixed, "remove the `/`"), unsafe_fix=True)
