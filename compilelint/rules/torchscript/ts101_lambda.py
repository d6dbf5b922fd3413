from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class LambdaInScript(Rule):
    code = "TS101"
    name = "lambda-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'lambda is not scriptable; use a named method'
    doc = RuleDoc(
        what="Flags `lambda` expressions in code that `torch.jit.script` compiles.",
        why="TorchScript has no lambda support: scripting fails with `Lambda is not supported`.",
        example="act = lambda t: t.clamp(min=0)\nreturn act(x)",
        use_instead="return x.clamp(min=0)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        act = lambda t: t.clamp(min=0)  # <-
        return act(x)
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x.clamp(min=0)
'''),
    )

    def visit_Lambda(self, node: cst.Lambda, ctx) -> None:  # noqa: ANN001
        ctx.report(node)
