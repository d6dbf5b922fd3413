"""TS103: keyword-only parameters with defaults."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class KeywordOnlyDefault(Rule):
    code = "TS103"
    name = "keyword-only-default-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = 'keyword-only parameter with a default is not scriptable; drop `*`'
    doc = RuleDoc(
        what="Flags keyword-only parameters that have a default value, in code `torch.jit.script` compiles.",
        why="Scripting fails with `Compiled functions can't take variable number of arguments or use "
            "keyword-only arguments with defaults`. Keyword-only parameters without a default script.",
        example="def forward(self, x, *, scale: float = 2.0):",
        use_instead="def forward(self, x, scale: float = 2.0):",
        fix_safety=("Unsafe: removing the `*` changes the signature: the parameters can then be passed by "
                    "position, and a later positional parameter added to the function would shift them."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, *, scale: float = 2.0):  # <-
        return x * scale
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, scale: float = 2.0):
        return x * scale
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function:
            return
        params = node.params
        defaulted = [p for p in params.kwonly_params if p.default is not None]
        if not defaulted:
            return
        fix = None
        # Only where the result is valid Python: a keyword-only parameter without a default cannot follow
        # one with a default once the `*` is gone (`def f(x, y=1, *, z)`: no fix).
        ordered = [*params.params, *params.kwonly_params]
        defaults_in_order = all(b.default is not None for a, b in zip(ordered, ordered[1:]) if a.default is not None)
        if type(params.star_arg) is cst.ParamStar and params.star_kwarg is None and defaults_in_order:
            fixed = params.with_changes(params=[*params.params, *params.kwonly_params], kwonly_params=[],
                                        star_arg=cst.MaybeSentinel.DEFAULT)
            fix = (params, fixed, "remove the bare `*` so the keyword-only parameters become ordinary ones")
        for i, p in enumerate(defaulted):
            ctx.report(p, fix=fix if i == 0 else None, unsafe_fix=True)
