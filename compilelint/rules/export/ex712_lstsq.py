"""EX712: `torch.linalg.lstsq` in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule
from compilelint.torchapi.shapes import NO_META_FUNCTIONS


class ExportLstsq(ExportRule):
    code = "EX712"
    call_gate = gate(names=NO_META_FUNCTIONS)
    name = "export-lstsq"
    torch_error = ("DynamicOutputShapeException", "linalg_lstsq")
    message = '`torch.linalg.lstsq` has no fake kernel; export fails'
    version_note = ("Verified on 2.13 with torch.export.export(strict=False), drivers gels, gelsd, gelss and gelsy "
                    "alike; pinv and solve export. torch.compile breaks the graph at it (GB437).")
    doc = RuleDoc(
        what="Flags calls of `torch.linalg.lstsq` in a `forward` (or what it calls) that torch.export runs.",
        why=(("Export traces the model on fake tensors, which need a kernel that computes each op's output shapes "
              'without data. `linalg_lstsq` has none (its residuals and rank depend on the data), so export stops '
              'with `DynamicOutputShapeException: aten.linalg_lstsq.default`. Lane and trajectory heads that fit '
              'polynomials by least squares hit it; the pseudo-inverse or the normal equations export. Solve with '
              '`torch.linalg.pinv(A) @ B`, or the normal equations (`torch.linalg.solve(A.mT @ A, A.mT @ B)`) when '
              'A has full column rank.')),
        example=("A = torch.stack([ys ** d for d in range(3)], -1)\n"
                 "coeffs = torch.linalg.lstsq(A.expand(n, -1, -1), xs.unsqueeze(-1)).solution"),
        use_instead=("A = torch.stack([ys ** d for d in range(3)], -1)\n"
                     "coeffs = torch.linalg.pinv(A) @ xs.unsqueeze(-1)"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pts = torch.nn.Linear(16, 10)

    def forward(self, feat):
        ys = torch.linspace(0, 1, 10)
        xs = self.pts(feat)
        A = torch.stack([ys ** d for d in range(3)], dim=-1)
        coeffs = torch.linalg.lstsq(A.expand(xs.shape[0], -1, -1), xs.unsqueeze(-1)).solution  # <-
        return coeffs.squeeze(-1)
''', inputs="[(torch.randn(3, 16),)]"),
        Example('''import torch
from torch import linalg


class M(torch.nn.Module):
    def forward(self, pts, target):
        ones = torch.ones_like(pts[..., :1])
        design = torch.cat([pts, ones], dim=-1)
        return linalg.lstsq(design, target, driver="gelsd").solution  # <-
''', inputs="[(torch.randn(20, 2), torch.randn(20, 1))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pts = torch.nn.Linear(16, 10)

    def forward(self, feat):
        ys = torch.linspace(0, 1, 10)
        xs = self.pts(feat)
        A = torch.stack([ys ** d for d in range(3)], dim=-1)
        coeffs = torch.linalg.pinv(A) @ xs.unsqueeze(-1)
        return coeffs.squeeze(-1)
''', inputs="[(torch.randn(3, 16),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, pts, target):
        design = torch.cat([pts, torch.ones_like(pts[..., :1])], dim=-1)
        return torch.linalg.solve(design.mT @ design, design.mT @ target)
''', inputs="[(torch.randn(20, 2), torch.randn(20, 1))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.qualify(node.func) in NO_META_FUNCTIONS:
            self.report(ctx, node, self.message)
