"""EX702: Python control flow on the size of a data-dependent tensor (`if rows.numel() == 0` after
`nonzero`, `... if boxes.size(0) else ...` after a boolean mask) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ConditionExportRule
from compilelint.semantic.constructs import Construct


class ExportDataDependentSizeBranch(ConditionExportRule):
    code = "EX702"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "export-data-dependent-size-branch"
    message = '{kw} on a data-dependent size in `{expr}`: export fails'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default. A comparison that the "
                    "size's known bounds already decide (`if k.shape[0] > 100` when k comes from a 6-element mask) "
                    "does not fail. strict=True fails on the same lines (`UserError: Consider annotating your code using "
                    "torch._check*()`).")
    doc = RuleDoc(
        what=("Flags `if`/`while`/conditional expressions and `assert`s whose condition reads the size of a tensor "
              "whose size depends on data: the result of `nonzero`, `x[mask]`, `unique`, `masked_select`, nms, and "
              "what is computed from them (`len(keep)`, `rows.numel()`, `boxes.size(0)`, `kept.shape[0]`)."),
        why=(('torch.export gives such a size an unbacked symbol (u0): a value it cannot know while tracing. Asking'
              ' Python whether `u0 == 0` stops the export with `GuardOnDataDependentSymNode: Could not guard on '
              'data-dependent expression`. The usual `if keep.numel() == 0: continue` guard is also unnecessary: '
              'indexing, matmul, index_add and sums all accept an empty tensor. Drop the branch (ops on an empty '
              'tensor are fine), assert the size with `torch._check(n > 0)`, or keep fixed shapes (a mask and '
              '`torch.where` instead of indexing).')),
        example=("rows = (chosen == e).nonzero()[:, 0]\nif rows.numel() == 0:\n    continue\n"
                 "out = out.index_add(0, rows, f(x[rows]))"),
        use_instead="rows = (chosen == e).nonzero()[:, 0]\nout = out.index_add(0, rows, f(x[rows]))  # empty rows: no-op",
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, chosen):
        out = torch.zeros_like(x)
        for e in range(3):
            rows = (chosen == e).nonzero()[:, 0]
            if rows.numel() == 0:  # <-
                continue
            out = out.index_add(0, rows, x[rows] * (e + 1))
        return out
''', inputs="[(torch.randn(6, 4), torch.tensor([0, 1, 0, 2, 1, 0]))]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = scores > 0.5
        kept = boxes[keep]
        best = kept.amax(0) if kept.size(0) else boxes.new_zeros(4)  # <-
        return best
''', inputs="[(torch.randn(8, 4), torch.rand(8))]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, chosen):
        out = torch.zeros_like(x)
        for e in range(3):
            rows = (chosen == e).nonzero()[:, 0]
            out = out.index_add(0, rows, x[rows] * (e + 1))
        return out
''', inputs="[(torch.randn(6, 4), torch.tensor([0, 1, 0, 2, 1, 0]))]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        keep = scores > 0.5
        kept = boxes[keep]
        torch._check(kept.size(0) > 0)
        return kept.amax(0) if kept.size(0) > 0 else boxes.new_zeros(4)
''', inputs="[(torch.randn(8, 4), torch.rand(8) + 0.5)]"),
    )

    def check_condition(self, owner: cst.CSTNode, test: cst.BaseExpression, ctx, kw: str) -> None:  # noqa: ANN001
        if ctx.facts.reads_dynamic_size(test) and not ctx.facts.is_checked(test):
            self.report(ctx, test, self.message.format(kw=kw, expr=brief(ctx.code_for(test), 24)), owner)
