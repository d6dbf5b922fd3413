"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc

_NAMEDTUPLE_API = {"_replace", "_asdict", "_make", "_fields", "_field_defaults"}


class NamedTupleMethods(Rule):
    code = "TS158"
    name = "namedtuple-helper-methods"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = ("`.{attr}` is a namedtuple helper that TorchScript's NamedTuple type does not have; build a new "
               "tuple with the constructor (`Out(a=..., b=old.b)`) or read the fields directly")
    doc = RuleDoc(
        what="Flags `._replace()`, `._asdict()`, `._make()`, `._fields` in compiled code.",
        why=("TorchScript supports `typing.NamedTuple` (and `collections.namedtuple`) values as outputs and "
             "inputs, with field access by name and index, but none of the helper methods: `'Out' object has "
             "no attribute or method '_replace'`."),
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

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if ctx.function is not None and node.attr.value in _NAMEDTUPLE_API:
            ctx.report(node, self.message.format(attr=node.attr.value))
