from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.frames import is_frame_entry


class ModuleListIndexedByArgument(Rule):
    code = "RC506"
    name = "module-container-indexed-by-argument"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`{expr}` picks a submodule by `{param}`: each value recompiles'
    doc = RuleDoc(
        what="Flags `self.<ModuleList/ModuleDict/Sequential>[arg]` where `arg` is a parameter of a compiled frame's entry (a module's `forward`, a `@torch.compile` function).",
        why=("Selecting a submodule must happen at trace time, so the argument is specialised, int or str. Verified on "
             "2.13 (backend=\"eager\"): a 10-head ModuleList called with idx 0..4 gave four recompiles, "
             "`triggered by the following guard failure(s): - 0/0: idx == 0  # return self.heads[idx](x)`."),
        example="def forward(self, x, task: int):\n    return self.heads[task](x)",
        use_instead="outs = torch.stack([h(x) for h in self.heads])\nreturn outs.index_select(0, task_ids).squeeze(0)  # task_ids: a 1-element long tensor",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 2) for _ in range(10)])
    def forward(self, x, task: int):
        return self.heads[task](x)  # <-
''', inputs="[(torch.randn(4, 3), i) for i in range(5)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = torch.nn.ModuleList([torch.nn.Linear(3, 2) for _ in range(10)])
    def forward(self, x, task):
        outs = torch.stack([h(x) for h in self.heads])
        return outs.index_select(0, task).squeeze(0)
''', inputs="[(torch.randn(4, 3), torch.tensor([i])) for i in range(5)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        self._params: set[str] = set()
        if fn is not None and is_frame_entry(ctx):
            p = fn.params
            self._params = {x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params]} - {"self"}

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        params = getattr(self, "_params", set())
        if not params or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
            return
        index = node.slice[0].slice.value
        if not (type(index) is cst.Name and index.value in params):
            return
        if ctx.facts.kind(node.value) is Kind.MODULES:
            ctx.report(node, self.message.format(expr=brief(ctx.code_for(node), 24), param=index.value))
