from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class IntAttributeMutated(Rule):
    code = "RC501"
    construct = Construct.PYTHON_STATE_UPDATE
    name = "python-counter-attribute"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`self.{attr}` is a number changed every call: each call recompiles'
    doc = RuleDoc(
        what="Flags `self.<attr> += ...` / `self.<attr> = self.<attr> + ...` on a Python number inside compiled code.",
        why=("Dynamo treats int attributes of modules as constants and guards on their value. Changing the value "
             "every call fails the guard every call: a recompile each time, until `recompile_limit` (8) is hit and "
             "the frame falls back to eager. Verified on 2.13 (backend=\"eager\"): three calls, two recompiles, "
             "`triggered by the following guard failure(s): - 0/0: self.step == 0  # self.step += 1`."),
        example="self.num_calls += 1\nreturn x * self.num_calls",
        use_instead="self.num_calls += 1  # a registered tensor buffer\nreturn x * self.num_calls",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0
    def forward(self, x):
        self.step += 1  # <-
        return x * self.step
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.zeros(()))
    def forward(self, x):
        self.step += 1
        return x * self.step
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
    )

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._check(node.target, node, ctx)

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        for target in node.targets:
            t = target.target
            if type(node.value) is cst.BinaryOperation and _same_attr(node.value.left, t):
                self._check(t, node, ctx)

    def _check(self, target: cst.BaseExpression, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        if not (type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self"):
            return
        if ctx.function is None or ctx.function.name.value == "__init__" or ctx.class_facts is None:
            return
        attr = target.attr.value
        if ctx.class_facts.attrs.get(attr) is Kind.PY and ctx.class_facts.literal_types.get(attr) in ("int", "float"):
            ctx.report(node, self.message.format(attr=attr))


def _same_attr(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    return (type(a) is cst.Attribute and type(b) is cst.Attribute and a.attr.value == b.attr.value
            and type(a.value) is cst.Name and type(b.value) is cst.Name and a.value.value == b.value.value)
