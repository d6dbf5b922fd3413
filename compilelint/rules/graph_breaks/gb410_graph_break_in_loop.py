"""GB410 graph-break-in-loop: a graph break inside a for/while loop makes Dynamo skip the whole frame."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.breaks import first_break
from compilelint.semantic.paths import dead_under_dynamo


class GraphBreakInLoop(Rule):
    code = "GB410"
    name = "graph-break-in-loop"
    family = "graph-break"
    targets = ("dynamo",)
    severity = "error"
    gb_id = "GB7000"
    message = 'graph break in a loop: Dynamo runs the whole function eagerly'
    doc = RuleDoc(
        what=("Flags any construct the other GB rules detect (print, .item(), a data-dependent `if`, a dynamic-shape "
              "op, ...) when it sits inside a `for` or `while` loop of a compiled function."),
        why=("Dynamo cannot resume a graph in the middle of a loop. When it meets a graph break inside a loop it gives "
             "up on the whole frame (GB7000): nothing of the function is compiled, not even the code before the loop. "
             "One debug `print` in a per-layer loop turns a compiled model back into eager. Comprehensions are not "
             "affected (Dynamo inlines them), and a break in a `while` condition only splits the graph."),
        example="for layer in self.layers:\n    x = layer(x)\n    print(x.shape)\nreturn x",
        use_instead="for layer in self.layers:\n    x = layer(x)\nreturn x",
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            print("layer out", x.shape)  # <-
        return x
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        total = x.new_zeros(())
        for i in range(3):
            if x[i].sum() > 0:  # <-
                total = total + x[i].sum()
        return x * total
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        total = x.new_zeros(())
        for i in range(2):
            s = x[i].sum()
            total = total + torch.where(s > 0, s, torch.zeros_like(s))
        return x * total
'''),
    )

    @classmethod
    def confirming_gb_ids(cls, gb_id: str | None) -> frozenset[str] | None:
        # the break in the loop is whichever construct sits there: a break of any id at the line confirms it
        return None

    def _check(self, node: cst.CSTNode, ctx, report_at: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        if ctx.loop_depth <= 0:
            return
        found = first_break(node, ctx)
        if found is None or dead_under_dynamo(ctx, node):
            return
        where = f"`{brief(ctx.context.rsplit('.', 1)[-1], 24)}`" if ctx.context else "the function"
        code = brief(ctx.code_for(report_at or node), 24)
        ctx.report(report_at or node, f"`{code}` in a loop: Dynamo runs {where} eagerly")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx, node.test)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx, node.test)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx, node.test)
