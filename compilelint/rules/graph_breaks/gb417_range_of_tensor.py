"""GB417 range-of-tensor-graph-break: Flags `range(t)` where `t` is a tensor"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function


class RangeOfTensorGraphBreak(CallBreakRule):
    code = 'GB417'
    name = 'range-of-tensor-graph-break'
    call_gate = gate(names={"range"})
    loop_fix = "loop over a Python int"
    gb_id = 'GB0059'
    severity = "warning"
    message = '`range()` of a tensor breaks the graph; use a Python int'
    doc = RuleDoc(
        what='Flags `range(t)` where `t` is a tensor in compiled code.',
        why="`range` needs a Python int, so Dynamo must read the tensor's value, which it cannot trace (GB0059).",
        example='for _ in range(self.n_steps_tensor):\n    x = self.step(x)',
        use_instead='for _ in range(self.n_steps):  # a Python int\n    x = self.step(x)',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = (x.sum() * 0).long() + 2
        for _ in range(n):  # <-
            x = x * 2
        return x
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x * 2
        return x
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if called_function(node, ctx, {"range"}):
            if any(a.keyword is None and ctx.facts.is_tensor(a.value) for a in node.args):
                return "GB0059"
        return None
