"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.annotations import optional_annotation


def optional_class_attributes(class_node: cst.ClassDef | None, aliases: dict[str, str]) -> set[str]:
    if class_node is None:
        return set()
    out = set()
    for stmt in class_node.body.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.AnnAssign and type(small.target) is cst.Name and \
                        optional_annotation(small.annotation.annotation, aliases):
                    out.add(small.target.value)
    return out


class OptionalAttributeUnrefined(Rule):
    code = "TA207"
    name = "optional-attribute-unrefined"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = 'Optional `self.{attr}` is not refined; copy it to a local first'
    doc = RuleDoc(
        what=("Flags uses of a class-level `Optional[...]` attribute as a value (arithmetic, method call, indexing) "
              "in compiled code."),
        why=("TorchScript narrows `Optional[T]` to `T` only for local variables. After `if self.bias is not None:` "
             "the attribute is still `Optional[Tensor]`, so `x + self.bias` fails with `Arguments for call are "
             "not valid` and `self.bias.view(...)` with `'Optional[Tensor]' object has no attribute 'view'`."),
        example="if self.bias is not None:\n    x = x + self.bias",
        use_instead="bias = self.bias\nif bias is not None:\n    x = x + bias",
    )
    bad = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    bias: Optional[torch.Tensor]
    def __init__(self):
        super().__init__()
        self.bias = torch.zeros(3)
    def forward(self, x):
        if self.bias is not None:
            x = x + self.bias  # <-
        return x
''', inputs="[(torch.randn(2, 3),)]"),
    )
    good = (
        Example('''
import torch
import torch.nn.functional as F
from typing import Optional
class M(torch.nn.Module):
    bias: Optional[torch.Tensor]
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 3))
        self.bias = torch.zeros(3)
    def forward(self, x):
        y = F.linear(x, self.weight, self.bias)
        bias = self.bias
        if bias is not None:
            y = y + bias
        return y
''', inputs="[(torch.randn(2, 3),)]"),
    )

    optional: set[str] = set()

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.optional = optional_class_attributes(ctx.class_node, ctx.facts.aliases) if ctx.function else set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not self.optional or not (type(node.value) is cst.Name and node.value.value == "self"):
            return
        attr = node.attr.value
        if attr not in self.optional:
            return
        parent = ctx.parent
        as_value = (
            (type(parent) is cst.Attribute and parent.value is node)
            or type(parent) is cst.BinaryOperation
            or (type(parent) is cst.Subscript and parent.value is node)
            or (type(parent) is cst.Call and parent.func is node)
            or (type(parent) is cst.UnaryOperation and type(parent.operator) is not cst.Not)
        )
        if as_value:
            ctx.report(node, self.message.format(attr=attr))
