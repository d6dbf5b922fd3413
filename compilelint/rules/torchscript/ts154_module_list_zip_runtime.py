"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.script_types import has_static_length


class ModuleListZipRuntime(Rule):
    code = "TS154"
    call_gate = gate(bare={"zip"})
    name = "module-list-zipped-with-runtime-value"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`zip()` of `{modules}` with a non-module `{other}`'
    doc = RuleDoc(
        what="Flags `zip(self.heads, feats)` in compiled code: a ModuleList/Sequential zipped with anything but another module container.",
        why=("TorchScript unrolls loops over module containers, which needs a length known at compile time on "
             "every zipped operand: `Can not iterate over a module list or tuple with a value that does not have a "
             "statically determinable length`. This holds even for a list literal or `range(n)`; two ModuleLists "
             "zip fine, and so does a tuple (a literal, or an attribute `__init__` sets to a `Tuple[...]` "
             "parameter)."),
        example="for head, feat in zip(self.heads, feats):\n    outs.append(head(feat))",
        use_instead="for i, head in enumerate(self.heads):\n    outs.append(head(feats[i]))",
    )
    bad = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 2) for _ in range(2)])
    def forward(self, feats: List[torch.Tensor]):
        outs = []
        for head, feat in zip(self.heads, feats):  # <-
            outs.append(head(feat))
        return outs
''', inputs="[([torch.randn(2, 3), torch.randn(4, 3)],)]"),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 2) for _ in range(2)])
        self.norms = torch.nn.ModuleList([torch.nn.LayerNorm(2) for _ in range(2)])
    def forward(self, feats: List[torch.Tensor]):
        outs = []
        for i, head in enumerate(self.heads):
            outs.append(head(feats[i]))
        for head, norm in zip(self.heads, self.norms):
            outs.append(norm(head(feats[0])))
        return outs
''', inputs="[([torch.randn(2, 3), torch.randn(4, 3)],)]"),
        Example('''
import torch
from typing import List, Tuple
class M(torch.nn.Module):
    def __init__(self, levels: Tuple[int, int] = (0, 1)):
        super().__init__()
        self.levels = levels
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 2) for _ in levels])
    def forward(self, feats: List[torch.Tensor]):
        outs = []
        for head, level in zip(self.heads, self.levels):
            outs.append(head(feats[level]))
        for head, scale in zip(self.heads, (1.0, 2.0)):
            outs.append(head(feats[0]) * scale)
        return outs
''', inputs="[([torch.randn(2, 3), torch.randn(4, 3)],)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not (type(node.func) is cst.Name and node.func.value == "zip"):
            return
        kinds = [ctx.kind(a.value) for a in node.args]
        if Kind.MODULES not in kinds or all(k is Kind.MODULES for k in kinds) or any(a.star for a in node.args):
            return
        if all(k is Kind.MODULES or has_static_length(a.value, ctx) for a, k in zip(node.args, kinds)):
            return  # a tuple of known length (a literal, an attribute __init__ sets to a tuple) unrolls too
        modules = next(a.value for a, k in zip(node.args, kinds) if k is Kind.MODULES)
        other = next(a.value for a, k in zip(node.args, kinds) if k is not Kind.MODULES)
        ctx.report(node, self.message.format(modules=ctx.code_for(modules), other=ctx.code_for(other)))
