"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.rules.base import Example, Rule, RuleDoc

_DATACLASS = {"dataclasses.dataclass", "dataclass"}


class DataclassInCompiledCode(Rule):
    code = "TS157"
    name = "dataclass-in-compiled-code"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is a `@dataclass`; return a NamedTuple'
    doc = RuleDoc(
        what="Flags construction of a `@dataclass` class of the same file in compiled code (typically a structured output).",
        why=("TorchScript compiles the classes it meets from their source; a dataclass's `__init__` is generated "
             "and has none: `OSError: Failed to get source for <function Out.__init__> using "
             "inspect.getsource`. A `typing.NamedTuple` output scripts fine."),
        example="@dataclass\nclass DetOut:\n    boxes: Tensor\n    scores: Tensor\n...\nreturn DetOut(boxes, scores)",
        use_instead="class DetOut(NamedTuple):\n    boxes: Tensor\n    scores: Tensor\n...\nreturn DetOut(boxes, scores)",
    )
    bad = (
        Example('''
import torch
from dataclasses import dataclass
@dataclass
class DetOut:
    boxes: torch.Tensor
    scores: torch.Tensor
class M(torch.nn.Module):
    def forward(self, x):
        return DetOut(x[:, :4], x[:, 4])  # <-
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
        return DetOut(x[:, :4], x[:, 4])
''', inputs="[(torch.randn(5, 6),)]", check="script-call"),
    )

    def __init__(self) -> None:
        self.path = None
        self.dataclasses: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef, ctx) -> None:  # noqa: ANN001
        if ctx.path != self.path:
            self.path, self.dataclasses = ctx.path, set()
        for d in node.decorators:
            target = d.decorator.func if type(d.decorator) is cst.Call else d.decorator
            if (qualify(target, ctx.facts.aliases) or "") in _DATACLASS:
                self.dataclasses.add(node.name.value)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.path != self.path or type(node.func) is not cst.Name:
            return
        if node.func.value in self.dataclasses:
            ctx.report(node, self.message.format(name=node.func.value))
