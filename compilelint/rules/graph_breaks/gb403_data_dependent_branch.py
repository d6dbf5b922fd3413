"""GB403 data-dependent-branch: Flags `if`, `while`, conditional expressions and comprehension filters whose condition reads tensor data (`if x.sum() > 0`, `while err > tol`, `if (x > 0).any()`, `if any(t)`)"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule, LOOP_NOTE
from compilelint.semantic.breaks import condition_reads_tensor
from compilelint.semantic.constructs import Construct
from compilelint.semantic.paths import dead_under_dynamo


class DataDependentBranch(BreakRule):
    code = 'GB403'
    construct = Construct.DATA_DEPENDENT_VALUE
    name = 'data-dependent-branch'
    loop_fix = "use torch.where / torch.cond"
    reads_tensor_data = True
    gb_id = 'GB0170'
    severity = "warning"
    version_note = ('Verified on 2.13: a comprehension filter on tensor data (`[b for b in boxes if area(b) > t]`) '
                    'breaks with GB0170 and, a comprehension being a loop, Dynamo then skips the whole frame '
                    '(GB7000): reported as an error there.')
    message = 'branch on tensor data; use `torch.where` or `torch.cond`'
    doc = RuleDoc(
        what='Flags `if`, `while`, conditional expressions and comprehension filters (`[b for b in boxes if b[4] > t]`) whose condition reads tensor data (`if x.sum() > 0`, `while err > tol`, `if (x > 0).any()`, `if any(t)`).',
        why='Dynamo traces one path; a condition on tensor data is only known when the kernels have run, so Dynamo splits the graph at the branch (GB0170) and runs the condition in Python. Conditions on shapes (`x.dim() == 4`, `x.shape[0] > 1`), on `self.training` or on config flags do not break and are not flagged.',
        example='if x.sum() > 0:\n    return x * 2\nreturn x',
        use_instead='return torch.where(x.sum() > 0, x * 2, x)',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, dets):
        kept = [d for d in dets if d[4] > 0.5]  # <-
        return torch.stack(kept).sum(0) if kept else dets.sum(0)
''', inputs="[(torch.rand(6, 5) + 0.3,), (torch.rand(6, 5) + 0.3,)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # <-
            return x * 2
        return x
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x * 2 if (x > 0).any() else x  # <-
        return y + 1
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, dets):
        keep = (dets[:, 4] > 0.5).to(dets.dtype)
        return (dets * keep[:, None]).sum(0)
''', inputs="[(torch.rand(6, 5) + 0.3,), (torch.rand(6, 5) + 0.3,)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return torch.where(x.sum() > 0, x * 2, x)
'''),
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def forward(self, x):
        if self.training and x.dim() == 2 and x.shape[0] > 1:
            x = x * self.scale
        return x
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`if`/`while`/`x if c else y`/a comprehension filter (and `and`/`or`/`not` in them) on tensor data."""
        if type(node) in (cst.If, cst.While, cst.IfExp, cst.CompIf) and condition_reads_tensor(node.test, ctx):
            return "GB0170"
        return None

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx, report_at=node.test)

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx, report_at=node.test)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx, report_at=node.test)

    def visit_CompIf(self, node: cst.CompIf, ctx) -> None:  # noqa: ANN001
        gb_id = self.detect(node, ctx)
        if gb_id and not dead_under_dynamo(ctx, node):
            # a comprehension is a loop: Dynamo gives up on the whole frame (GB7000; verified on 2.13)
            ctx.report(node.test, self.message.rstrip(". ") + LOOP_NOTE, severity="error", gb_id=gb_id)
