"""GB421 backward-in-compiled-code: Flags `tensor.backward()` and `torch.autograd.backward(...)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function, tensor_method


class BackwardInCompiledGraphBreak(CallBreakRule):
    code = 'GB421'
    name = 'backward-in-compiled-code'
    call_gate = gate(names={"torch.autograd.backward"}, methods={"backward"})
    loop_fix = "call backward outside"
    gb_id = 'GB0123'
    severity = "warning"
    message = '`.backward()` breaks the graph; call it outside compiled code'
    doc = RuleDoc(
        what='Flags `tensor.backward()` and `torch.autograd.backward(...)` in compiled code (forward, compiled train steps).',
        why='Dynamo does not trace `Tensor.backward()` (GB0123): it splits the graph and runs the backward eagerly.',
        example='loss = self.crit(self.net(x), y)\nloss.backward()\nreturn loss',
        use_instead='return self.crit(self.net(x), y)  # and loss.backward() in the loop',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        loss = (x * self.w).sum()
        loss.backward()  # <-
        return loss.detach()
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        loss = (x * self.w).sum()
        return loss
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and tensor_method(node, ctx, ("backward",)):
            return "GB0123"
        if called_function(node, ctx, {"torch.autograd.backward"}):
            return "GB0123"
        return None
