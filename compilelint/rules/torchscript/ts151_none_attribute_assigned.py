"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.analysis.pytypes import is_none
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.attributes import assigned_self_attrs


class NoneAttributeAssigned(Rule):
    code = "TS151"
    name = "none-attribute-assigned-later"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`self.{attr}` is None after `__init__`; declare it Optional'
    doc = RuleDoc(
        what="Flags assignments in compiled methods to an attribute that `__init__` only ever sets to `None` (a lazily built cache).",
        why=("TorchScript takes attribute types from the instance: an attribute holding `None` is NoneType, and "
             "`self.anchors = ...` in forward fails with `Wrong type for attribute assignment. Expected NoneType "
             "but got Tensor`."),
        example="self.anchors = None  # __init__\n...\nif self.anchors is None:\n    self.anchors = make_anchors(x)",
        use_instead=("anchors: Optional[torch.Tensor]  # class body\n...\nanchors = self.anchors\nif anchors is None:\n"
                     "    anchors = make_anchors(x)\n    self.anchors = anchors"),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.grid = None
    def forward(self, x):
        if self.grid is None:
            self.grid = torch.arange(x.shape[-1])  # <-
        return x + self.grid
'''),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    grid: Optional[torch.Tensor]
    def __init__(self):
        super().__init__()
        self.grid = None
    def forward(self, x):
        grid = self.grid
        if grid is None:
            grid = torch.arange(x.shape[-1])
            self.grid = grid
        return x + grid
'''),
    )

    def _check(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        fn, cls = ctx.function, ctx.class_node
        if fn is None or cls is None or fn.name.value == "__init__":
            return
        if type(node) in (cst.Assign, cst.AnnAssign) and (node.value is None or is_none(node.value)):
            return
        shape = class_shape(cls, ctx.facts.aliases)
        for target in assigned_self_attrs(node):
            attr = target.attr.value
            values = shape.init_values.get(attr)
            if values and all(is_none(v) for v in values) and attr not in shape.class_level \
                    and attr not in shape.init_mutated:
                ctx.report(target, self.message.format(attr=attr, method=fn.name.value))

    visit_Assign = visit_AugAssign = visit_AnnAssign = _check
