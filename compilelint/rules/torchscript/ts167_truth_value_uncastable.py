"""TS167: a truth test of a value TorchScript cannot cast to bool (an Optional parameter, a submodule)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.script_types import optional_param


class TruthValueUncastable(Rule):
    code = "TS167"
    name = "truth-value-torchscript-cannot-cast"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '{what} is no bool when scripted; {fix}'
    doc = RuleDoc(
        what=("Flags `if x:` / `while x:` / `not x` / `x and y` where `x` is a parameter annotated `Optional[...]` "
              "(never tested `is None`) or a submodule (`if self.norm:`)."),
        why=("Python's truth test works on anything; TorchScript casts to bool only bools, numbers, tensors and "
             "containers: `Could not cast value of type Optional[bool] to bool`, `Could not cast value of type "
             "__torch__...BatchNorm2d to bool`. An Optional must be refined first (`is not None`), and a submodule "
             "that may be missing is `None` in one configuration, which TorchScript cannot cast either."),
        example="def forward(self, x, flag: Optional[bool] = None):\n    if flag:\n        x = x * 2\n    return x",
        use_instead=("def forward(self, x, flag: Optional[bool] = None):\n    if flag is not None and flag:\n"
                     "        x = x * 2\n    return x"),
    )
    bad = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, flag: Optional[bool] = None):
        if flag:  # <-
            x = x * 2
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(3)
    def forward(self, x):
        if self.norm:  # <-
            x = self.norm(x)
        return x
'''),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(3)
        self.use_norm = True
    def forward(self, x, flag: Optional[bool] = None):
        if flag is not None and flag:
            x = x * 2
        if self.use_norm:
            x = self.norm(x)
        return x
''', check="script-call"),
    )

    def _check(self, test: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        annotation = optional_param(test, ctx)
        if annotation is not None:
            ctx.report(test, self.message.format(
                what=f"`{brief(ctx.code_for(test), 24)}: {brief(annotation, 20)}`",
                fix="test `is not None`"))
        elif type(test) is cst.Attribute and type(test.value) is cst.Name and test.value.value == "self" \
                and ctx.class_facts is not None and ctx.class_facts.attrs.get(test.attr.value) is Kind.MODULE:
            ctx.report(test, self.message.format(
                what=f"submodule `{brief(ctx.code_for(test), 24)}`",
                fix="test `is not None`"))

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._check(node.test, ctx)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._check(node.test, ctx)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._check(node.test, ctx)

    def visit_UnaryOperation(self, node: cst.UnaryOperation, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.Not:
            self._check(node.expression, ctx)

    def visit_BooleanOperation(self, node: cst.BooleanOperation, ctx) -> None:  # noqa: ANN001
        self._check(node.left, ctx)
        self._check(node.right, ctx)
