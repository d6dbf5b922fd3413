"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.rules.base import Example, Rule, RuleDoc

_NAMEDTUPLE_API = {"_replace", "_asdict", "_make", "_fields", "_field_defaults"}


class NamedTupleMethods(Rule):
    code = "TS158"
    name = "namedtuple-helper-methods"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`.{attr}` is a namedtuple helper TorchScript lacks'
    method_message = '`{call}` calls method `{attr}` of NamedTuple `{cls}`'
    doc = RuleDoc(
        what=("Flags `._replace()`, `._asdict()`, `._make()`, `._fields` in compiled code, and calls of methods "
              "defined in the body of a `typing.NamedTuple` class of the same file."),
        why=("TorchScript supports `typing.NamedTuple` (and `collections.namedtuple`) values as outputs and "
             "inputs, with field access by name and index, but none of the helper methods: `'Out' object has "
             "no attribute or method '_replace'`; methods written in the NamedTuple's class body are dropped as "
             "well (`'Out' object has no attribute or method 'area'`)."),
        example="out = DetOut(boxes, scores)\nreturn out._replace(scores=out.scores.sigmoid())",
        use_instead="out = DetOut(boxes, scores)\nreturn DetOut(out.boxes, out.scores.sigmoid())",
    )
    bad = (
        Example('''
import torch
from typing import NamedTuple
class DetOut(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor
class M(torch.nn.Module):
    def forward(self, x):
        out = DetOut(x[:, :4], x[:, 4])
        return out._replace(scores=out.scores.sigmoid())  # <-
''', inputs="[(torch.randn(5, 6),)]"),
        Example('''
import torch
from typing import NamedTuple
class Boxes(NamedTuple):
    xyxy: torch.Tensor
    def area(self):
        wh = self.xyxy[:, 2:] - self.xyxy[:, :2]
        return wh[:, 0] * wh[:, 1]
class M(torch.nn.Module):
    def forward(self, x):
        boxes = Boxes(x[:, :4].abs().cumsum(-1))
        return boxes.area()  # <-
''', inputs="[(torch.randn(5, 6),)]"),
    )
    good = (
        Example('''
import torch
from typing import NamedTuple
class DetOut(NamedTuple):
    boxes: torch.Tensor
    scores: torch.Tensor
class M(torch.nn.Module):
    def forward(self, x):
        out = DetOut(x[:, :4], x[:, 4])
        return DetOut(out.boxes, out.scores.sigmoid()), out[0]
''', inputs="[(torch.randn(5, 6),)]", check="script-call"),
    )

    def __init__(self) -> None:
        self.path = None
        self.methods: dict[str, set[str]] = {}  # NamedTuple class of this file -> its methods
        self.bound: dict[str, str] = {}  # local name -> NamedTuple class it holds

    def visit_ClassDef(self, node: cst.ClassDef, ctx) -> None:  # noqa: ANN001
        if ctx.path != self.path:
            self.path, self.methods = ctx.path, {}
        if any((qualify(b.value, ctx.facts.aliases) or "") == "typing.NamedTuple" for b in node.bases):
            self.methods[node.name.value] = {s.name.value for s in node.body.body if type(s) is cst.FunctionDef}

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.bound = {}

    def _holds(self, expr: cst.BaseExpression) -> str | None:
        if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in self.methods:
            return expr.func.value
        if type(expr) is cst.Name:
            return self.bound.get(expr.value)
        return None

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.path != self.path:
            return
        cls = self._holds(node.value)
        for t in node.targets:
            if type(t.target) is cst.Name:
                if cls is not None:
                    self.bound[t.target.value] = cls
                else:
                    self.bound.pop(t.target.value, None)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.path != self.path or type(node.func) is not cst.Attribute:
            return
        cls = self._holds(node.func.value)
        if cls is not None and node.func.attr.value in self.methods.get(cls, ()):
            ctx.report(node, self.method_message.format(call=ctx.code_for(node), attr=node.func.attr.value, cls=cls))

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None and node.attr.value in _NAMEDTUPLE_API:
            ctx.report(node, self.message.format(attr=node.attr.value))
