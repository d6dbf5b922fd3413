"""GB437 lstsq-graph-break: Flags `torch.linalg.lstsq` in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.torchapi.shapes import NO_META_FUNCTIONS


class LstsqGraphBreak(CallBreakRule):
    code = 'GB437'
    also_gb_ids = ('GB0037',)
    name = 'lstsq-graph-break'
    call_gate = gate(names=NO_META_FUNCTIONS)
    loop_fix = "use torch.linalg.pinv or solve"
    gb_id = 'GB0036'
    severity = "warning"
    message = '`torch.linalg.lstsq` breaks the graph; use `pinv(A) @ B`'
    version_note = ('Verified on 2.13: GB0036 by default, GB0037 "Dynamic shape operator (no meta kernel)" with '
                    'torch._dynamo.config.capture_dynamic_output_shape_ops = True. torch.export fails on it too '
                    '(EX712).')
    doc = RuleDoc(
        what='Flags calls of `torch.linalg.lstsq` in compiled code (lane and trajectory polynomial fits, calibration).',
        why=(('Dynamo runs every op on fake tensors to learn output shapes. `linalg_lstsq` has no fake (meta) '
              'kernel (its residuals, rank and singular values depend on the data and the driver), so the fake run '
              'raises DynamicOutputShapeException and Dynamo breaks the graph there (GB0036), even with '
              'capture_dynamic_output_shape_ops (GB0037). The fit runs eagerly, between two graphs. Solve with '
              '`torch.linalg.pinv(A) @ B`, or the normal equations (`torch.linalg.solve(A.mT @ A, A.mT @ B)`) when '
              'A has full column rank.')),
        example=('A = torch.stack([ys ** d for d in range(3)], -1)\n'
                 'coeffs = torch.linalg.lstsq(A.expand(n, -1, -1), xs.unsqueeze(-1)).solution'),
        use_instead=('A = torch.stack([ys ** d for d in range(3)], -1)\n'
                     'coeffs = torch.linalg.pinv(A) @ xs.unsqueeze(-1)  # or the normal equations, full rank'),
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
        return coeffs.squeeze(-1) * 2
''', inputs="[(torch.randn(3, 16),)]"),
        Example('''import torch
from torch.linalg import lstsq

class M(torch.nn.Module):
    def forward(self, a, b):
        sol = lstsq(a, b).solution  # <-
        return sol + 1
''', inputs="[(torch.randn(8, 3), torch.randn(8, 2))]"),
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
        return coeffs.squeeze(-1) * 2
''', inputs="[(torch.randn(3, 16),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, a, b):
        sol = torch.linalg.solve(a.mT @ a, a.mT @ b)
        return sol + 1
''', inputs="[(torch.randn(8, 3), torch.randn(8, 2))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and call_name(node, ctx) in NO_META_FUNCTIONS:
            return "GB0037" if ctx.module_facts.capture_dynamic_output_shape_ops else "GB0036"
        return None
