"""TS107: `tuple(...)` of a list, a shape or a comprehension."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class TupleOfList(SemanticScriptRule):
    code = "TS107"
    call_gate = gate(bare={"tuple"})
    name = "tuple-of-list-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`tuple()` of a list is not scriptable; keep the list'
    doc = RuleDoc(
        what="Flags `tuple(...)` applied to a list, a generator expression, a comprehension or a tensor shape "
             "(`x.shape` is a `List[int]` in TorchScript) in code `torch.jit.script` compiles.",
        why="Scripting fails with `cannot statically infer the expected size of a list in this context`.",
        example="size = tuple(x.shape)",
        use_instead="size = x.shape        # a List[int]; or (x.shape[0], x.shape[1])",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        parts = tuple(t * 2 for t in [x, x])  # <-
        return parts[0]
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        size = tuple(x.shape)  # <-
        return x.view(size)
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        parts = [t * 2 for t in [x, x]]
        size = (x.shape[0], x.shape[1])
        return parts[0].view(size)
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not (type(node.func) is cst.Name and node.func.value == "tuple" and len(node.args) == 1):
            return
        if "tuple" in ctx.facts.env or node.args[0].star:
            return
        arg = node.args[0].value
        if type(arg) in (cst.GeneratorExp, cst.ListComp, cst.List) or ctx.facts.kind(arg) in (Kind.SHAPE, Kind.TENSORS):
            if type(arg) is cst.Tuple:
                return
            ctx.report(node)
