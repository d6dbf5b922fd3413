"""GB426 autograd-grad-graph-break: Flags `torch.autograd.grad(...)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function


class AutogradGradGraphBreak(CallBreakRule):
    code = 'GB426'
    name = 'autograd-grad-graph-break'
    call_gate = gate(names={"torch.autograd.grad"})
    loop_fix = "use torch.func.grad"
    gb_id = 'GB9186'
    severity = "warning"
    message = '`torch.autograd.grad` breaks the graph; use `torch.func.grad`'
    doc = RuleDoc(
        what='Flags `torch.autograd.grad(...)` in compiled code.',
        why='With the default torch._dynamo.config.trace_autograd_ops=False Dynamo does not trace `torch.autograd.grad` and splits the graph there (GB9186).',
        example='g, = torch.autograd.grad(energy, pos, create_graph=True)',
        use_instead='g = torch.func.grad(energy_fn)(pos)',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = (x * self.w).sum()
        g, = torch.autograd.grad(y, self.w, create_graph=True)  # <-
        return g * 2
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        y = (x * self.w).sum()
        return y * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB9186" if called_function(node, ctx, {"torch.autograd.grad"}) else None
