"""TS108: builtin `sum()` over tensors."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class SumOfTensors(SemanticScriptRule):
    code = "TS108"
    name = "sum-of-tensors-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = ("TorchScript's builtin `sum()` takes numbers, not tensors; use `torch.stack([...]).sum(0)` "
               "or add in a loop")
    doc = RuleDoc(
        what="Flags the Python builtin `sum()` over a list, generator or comprehension of tensors in code "
             "`torch.jit.script` compiles.",
        why="Scripting fails with `Arguments for call are not valid` (TorchScript's `sum` is defined for "
            "`List[int]`/`List[float]`). `sum()` over Python numbers scripts and is not flagged.",
        example="return sum(head(x) for head in self.heads)",
        use_instead="return torch.stack([head(x) for head in self.heads]).sum(0)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        parts = torch.split(x, 1)
        return sum(parts)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)])
    def forward(self, x):
        return sum(head(x) for head in self.heads)  # <-
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)])
    def forward(self, x):
        n = sum([x.size(0), x.size(1)])
        return torch.stack([head(x) for head in self.heads]).sum(0) * n
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not (isinstance(node.func, cst.Name) and node.func.value == "sum" and node.args) or "sum" in ctx.facts.env:
            return
        arg = node.args[0].value
        facts = ctx.facts
        if isinstance(arg, (cst.GeneratorExp, cst.ListComp)):
            saved = dict(facts.env)
            comp = arg.for_in
            try:
                while comp is not None:
                    facts.bind_iteration(comp.target, comp.iter)
                    comp = comp.inner_for_in
                element = facts.kind(arg.elt)
            finally:
                facts.env = saved
            if element is Kind.TENSOR:
                ctx.report(node)
        elif facts.kind(arg) is Kind.TENSORS:
            ctx.report(node)
