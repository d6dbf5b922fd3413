"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.semantic.attributes import assigned_self_attrs
from compilelint.rules.base import Example, Rule, RuleDoc


class AttributeOutsideInit(Rule):
    code = "TS150"
    name = "attribute-assigned-outside-init"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`self.{attr}` set in `{method}` but never in `__init__`'
    doc = RuleDoc(
        what="Flags assignments to `self.<attr>` in compiled methods when `__init__` (and what it calls) never creates the attribute.",
        why=("TorchScript fixes a module's attributes from the instance after `__init__`; assigning a new one in "
             "`forward` fails with `Tried to set nonexistent attribute: cache. Did you forget to initialize it in "
             "__init__()?`."),
        example="def forward(self, x):\n    self.last_input = x\n    return self.fc(x)",
        use_instead=("def __init__(self):\n    ...\n    self.register_buffer('last_input', torch.zeros(0), persistent=False)\n"
                     "def forward(self, x):\n    self.last_input = x\n    return self.fc(x)"),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)
    def forward(self, x):
        y = self.fc(x)
        self.last_features = y  # <-
        return y
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._build()
        self.register_buffer("last_features", torch.zeros(2, 3), persistent=False)
    def _build(self):
        self.fc = torch.nn.Linear(3, 3)
    def forward(self, x):
        y = self.fc(x)
        self.last_features = y
        return y
'''),
    )

    def _check(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        fn, cls = ctx.function, ctx.class_node
        if fn is None or cls is None or fn.name.value == "__init__":
            return
        if any(type(a) is cst.FunctionDef and a is not fn for a in ctx.ancestors):
            return
        shape = class_shape(cls, ctx.facts.aliases)
        if shape.dynamic or not shape.only_torch_bases():
            return
        for target in assigned_self_attrs(node):
            attr = target.attr.value
            if not shape.known(attr):
                ctx.report(target, self.message.format(attr=attr, method=fn.name.value))

    visit_Assign = visit_AugAssign = visit_AnnAssign = _check
