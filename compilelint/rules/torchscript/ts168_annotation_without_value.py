"""TS168: a local declared with an annotation and no value (`out: torch.Tensor`)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class AnnotationWithoutValue(Rule):
    code = "TS168"
    name = "annotated-local-without-value"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{target}: T` without a value is not scriptable'
    doc = RuleDoc(
        what="Flags annotated declarations without a value (`out: torch.Tensor`) in compiled functions.",
        why="Scripting fails with `annotated assignments without assigned value aren't supported`.",
        example="def forward(self, x):\n    out: torch.Tensor\n    out = x + 1\n    return out",
        use_instead="def forward(self, x):\n    out: torch.Tensor = x + 1\n    return out",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        out: torch.Tensor  # <-
        if x.sum() > 0:
            out = x + 1
        else:
            out = x - 1
        return out
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        out: torch.Tensor = x - 1
        if x.sum() > 0:
            out = x + 1
        return out
''', check="script-call"),
    )

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None and node.value is None:
            ctx.report(node, self.message.format(target=ctx.code_for(node.target)))
