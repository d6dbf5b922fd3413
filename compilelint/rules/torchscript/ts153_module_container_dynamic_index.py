"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief


def _constant_index(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        expr = expr.expression
    return type(expr) in (cst.Integer, cst.SimpleString)


class ModuleContainerDynamicIndex(Rule):
    code = "TS153"
    name = "module-container-dynamic-index"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{expr}` indexes modules with {how}'
    doc = RuleDoc(
        what=("Flags `self.layers[i]`, `self.heads[name]` and slices `self.layers[1:]` of an `nn.ModuleList`, "
              "`nn.ModuleDict` or `nn.Sequential` in compiled code, where the index is not an int or str literal."),
        why=("Submodules of a scripted container are distinct types, so TorchScript must know which one at "
             "compile time: `Expected integer literal for index ... ModuleList/Sequential indexing is only "
             "supported with integer literals`; a ModuleDict needs a string literal; a slice gives a tuple that "
             "cannot be called or iterated as modules."),
        example="for i in range(len(self.blocks)):\n    x = self.blocks[i](x)",
        use_instead="for block in self.blocks:\n    x = block(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])
    def forward(self, x):
        for i in range(len(self.blocks)):
            x = self.blocks[i](x) + x  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleDict({"cls": torch.nn.Linear(3, 2), "box": torch.nn.Linear(3, 4)})
    def forward(self, x, task: str):
        return self.heads[task](x)  # <-
''', inputs="[(torch.randn(2, 3), 'cls')]"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])
    def forward(self, x):
        x = self.stages[0](x)
        for stage in self.stages[1:]:  # <-
            x = stage(x)
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])
        self.heads = torch.nn.ModuleDict({"cls": torch.nn.Linear(3, 2), "box": torch.nn.Linear(3, 4)})
    def forward(self, x):
        x = self.blocks[0](x)
        for i, block in enumerate(self.blocks):
            if i > 0:
                x = block(x) + x
        return self.heads["cls"](x), self.blocks[-1](x)
'''),
    )

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.kind(node.value) is not Kind.MODULES:
            return
        if not (type(node.value) is cst.Attribute and type(node.value.value) is cst.Name
                and node.value.value.value == "self"):
            return
        if len(node.slice) != 1:
            return
        index = node.slice[0].slice
        if type(index) is cst.Slice:
            how = "a slice"
        elif type(index) is cst.Index and not _constant_index(index.value):
            how = f"the variable `{ctx.code_for(index.value)}`" if type(index.value) is cst.Name else "a computed index"
        else:
            return
        ctx.report(node, self.message.format(expr=brief(ctx.code_for(node), 24), how=how, attr=node.value.attr.value))
