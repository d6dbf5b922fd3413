"""TS108: builtin `sum()` / `max()` / `min()` over tensors."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class SumOfTensors(SemanticScriptRule):
    code = "TS108"
    call_gate = gate(bare={"sum", "max", "min"})
    name = "builtin-reduction-of-tensors-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'builtin `{func}()` of tensors; use `torch.stack(...).{func}(0)`'
    doc = RuleDoc(
        what="Flags the Python builtins `sum()`, `max()` and `min()` over a list, generator or comprehension of "
             "tensors, and `max(a, b)`/`min(a, b)` of tensors, in code `torch.jit.script` compiles.",
        why=('Scripting fails with `Arguments for call are not valid` (TorchScript defines them for '
             '`List[int]`/`List[float]`); `max(t1, t2)` scripts but fails when called. Over Python numbers they '
             'script and are not flagged. Use `torch.stack([...]).sum(0)` (`.max(0).values`, `.min(0).values`), or'
             ' `torch.add`/`torch.maximum`/`torch.minimum` for two tensors.'),
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
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        scores = [x.sum(), x.mean()]
        return max(scores)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return max(x.sum(), x.mean())  # <-
''', check="script-call"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)])
    def forward(self, x):
        n = sum([x.size(0), x.size(1)]) + max(x.size(0), 2)
        best = torch.stack([x.sum(), x.mean()]).max(0).values + torch.maximum(x.sum(), x.mean())
        return torch.stack([head(x) for head in self.heads]).sum(0) * n * best
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (type(func) is cst.Name and func.value in ("sum", "max", "min") and node.args) \
                or func.value in ctx.facts.env or any(a.keyword is not None or a.star for a in node.args):
            return
        name = func.value
        message = self.message.format(func=name, values=".values" if name != "sum" else "",
                                      pair={"sum": "add", "max": "maximum", "min": "minimum"}[name])
        facts = ctx.facts
        if len(node.args) > 1:
            if name != "sum" and all(facts.kind(a.value) is Kind.TENSOR for a in node.args):
                ctx.report(node, message)
            return
        arg = node.args[0].value
        if type(arg) in (cst.GeneratorExp, cst.ListComp):
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
                ctx.report(node, message)
        elif facts.kind(arg) is Kind.TENSORS:
            ctx.report(node, message)
