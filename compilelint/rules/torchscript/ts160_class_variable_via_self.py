"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.analysis.nodes import string_value
from compilelint.analysis.names import qualify
from compilelint.rules.base import Example, Rule, RuleDoc


def _class_variables(node: cst.ClassDef, aliases: dict[str, str]) -> set[str]:
    """Class-body variables with a value that TorchScript will not see on the instance: not `Final`, not
    listed in `__constants__`."""
    names: set[str] = set()
    constants: set[str] = set()
    for stmt in node.body.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign:
                for t in small.targets:
                    if type(t.target) is cst.Name:
                        if t.target.value == "__constants__" and type(small.value) in (cst.List, cst.Tuple, cst.Set):
                            constants |= {v for v in (string_value(e.value) for e in small.value.elements)
                                          if v is not None}
                        else:
                            names.add(t.target.value)
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                ann = small.annotation.annotation
                base = ann.value if type(ann) is cst.Subscript else ann
                if (qualify(base, aliases) or "").rsplit(".", 1)[-1] not in ("Final", "ClassVar"):
                    names.add(small.target.value)
    return {n for n in names - constants if not n.startswith("__")}


class ClassVariableViaSelf(Rule):
    code = "TS160"
    name = "class-variable-read-through-self"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`self.{attr}` reads a class variable; declare it `Final`'
    doc = RuleDoc(
        what=("Flags `self.X` reads in compiled code where `X` is a variable assigned in the module's class body "
              "(not `Final`, not in `__constants__`) and never assigned on the instance in `__init__`."),
        why=("TorchScript builds the module type from instance attributes; class variables are not copied: "
             "`Module 'M' has no attribute 'scale'`. `Final` class variables and `__constants__` entries become "
             "constants and work."),
        example="class Head(nn.Module):\n    score_thresh = 0.05\n    def forward(self, x):\n        return x[x > self.score_thresh]",
        use_instead="class Head(nn.Module):\n    score_thresh: Final = 0.05\n    def forward(self, x):\n        return x[x > self.score_thresh]",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    score_thresh = 0.05
    mode: str = "sigmoid"
    def forward(self, x):
        if self.mode == "sigmoid":  # <-
            x = x.sigmoid()
        return x * (x > self.score_thresh)  # <-
'''),
    )
    good = (
        Example('''
import torch
from typing import Final
class M(torch.nn.Module):
    __constants__ = ["mode"]
    score_thresh: Final = 0.05
    mode = "sigmoid"
    scale = 1.0
    def __init__(self):
        super().__init__()
        self.scale = 2.0
    def forward(self, x):
        if self.mode == "sigmoid":
            x = x.sigmoid()
        return x * (x > self.score_thresh) * self.scale
'''),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.variables: set[str] = set()
        cls = ctx.class_node
        if ctx.function is None or cls is None or ctx.function.name.value == "__init__":
            return
        shape = class_shape(cls, ctx.facts.aliases)
        if shape.dynamic or not shape.only_torch_bases():
            return
        self.variables = {v for v in _class_variables(cls, ctx.facts.aliases)
                          if v not in shape.init_values and v not in shape.methods}

    variables: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if not self.variables or ctx.function is None:
            return
        if type(node.value) is cst.Name and node.value.value == "self" and node.attr.value in self.variables:
            parent = ctx.parent
            if type(parent) in (cst.AssignTarget, cst.AugAssign) and getattr(parent, "target", None) is node:
                return
            ctx.report(node, self.message.format(attr=node.attr.value))
