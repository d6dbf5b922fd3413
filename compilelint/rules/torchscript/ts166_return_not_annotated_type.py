"""TS166: a `return` whose value is not the type the function's return annotation says (`-> Tensor`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import is_none, walk
from compilelint.rules.base import Example, Rule, RuleDoc

_TENSOR = {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}


class ReturnNotAnnotatedType(Rule):
    code = "TS166"
    name = "return-not-annotated-type"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'annotated `-> Tensor` but returns {what}; annotate {fix}'
    doc = RuleDoc(
        what="Flags `return` statements of a function annotated `-> torch.Tensor` that return a tuple or None.",
        why=("Python ignores return annotations; TorchScript does not: `Return value was annotated as having type "
             "Tensor but is actually of type Tuple[Tensor, Tuple[Tensor]]` (or `NoneType`), at the `return`."),
        example="def forward(self, x) -> torch.Tensor:\n    return x, (x,)",
        use_instead="def forward(self, x) -> Tuple[torch.Tensor, Tuple[torch.Tensor]]:\n    return x, (x,)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x) -> torch.Tensor:
        return x, (x,)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x) -> torch.Tensor:
        if x.sum() > 0:
            return None  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
from typing import Optional, Tuple
class M(torch.nn.Module):
    def pair(self, x) -> Tuple[torch.Tensor, Tuple[torch.Tensor]]:
        return x, (x,)
    def forward(self, x) -> Optional[torch.Tensor]:
        y, _ = self.pair(x)
        if y.sum() > 0:
            return None
        return y
''', check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if node is not ctx.function or node.returns is None:
            return
        if qualify(node.returns.annotation, ctx.facts.aliases) not in _TENSOR:
            return
        for stmt, _ in walk(node.body, (node,)):
            if type(stmt) is not cst.Return:
                continue
            if type(stmt.value) is cst.Tuple:
                ctx.report(stmt, self.message.format(what="a tuple", fix="`Tuple[...]` of its items"))
            elif stmt.value is None or is_none(stmt.value):
                ctx.report(stmt, self.message.format(what="None", fix="`Optional[torch.Tensor]`"))
