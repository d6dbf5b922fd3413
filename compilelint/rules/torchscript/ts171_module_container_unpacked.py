"""TS171: `for a, b in self.layers:` unpacking the modules of a ModuleList."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


class ModuleContainerUnpacked(Rule):
    code = "TS171"
    name = "module-container-item-unpacked"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'unpacking the modules of `{modules}` is not scriptable'
    doc = RuleDoc(
        what="Flags `for a, b in self.layers:` where `self.layers` is a ModuleList/Sequential (of ModuleLists).",
        why=("TorchScript unrolls a loop over a module container one module at a time and cannot destructure a "
             "module: scripting fails with `module cannot be used as a tuple`, even when each item is a ModuleList "
             "of two."),
        example="for attn, ff in self.layers:\n    x = ff(attn(x))",
        use_instead="for attn, ff in zip(self.attns, self.ffs):\n    x = ff(attn(x))",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(
            [torch.nn.ModuleList([torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)]) for _ in range(2)])
    def forward(self, x):
        for attn, ff in self.layers:  # <-
            x = ff(attn(x))
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attns = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
        self.ffs = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
    def forward(self, x):
        for attn, ff in zip(self.attns, self.ffs):
            x = ff(attn(x))
        for i, attn in enumerate(self.attns):
            x = attn(x) + i
        return x
''', check="script-call"),
    )

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        if type(node.target) in (cst.Tuple, cst.List) and ctx.kind(node.iter) is Kind.MODULES:
            ctx.report(node, self.message.format(modules=ctx.code_for(node.iter)))
