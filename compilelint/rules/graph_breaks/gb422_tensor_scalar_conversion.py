"""GB422 tensor-scalar-conversion: Flags `int(t)`, `float(t)` and `bool(t)` where `t` is a tensor,"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.constructs import Construct


class TensorScalarConversion(CallBreakRule):
    code = 'GB422'
    construct = Construct.DATA_DEPENDENT_VALUE
    name = 'tensor-scalar-conversion'
    call_gate = gate(bare={"int", "float", "bool"})
    loop_fix = "keep the value as a tensor"
    reads_tensor_data = True
    gb_id = 'GB0124'
    severity = "warning"
    message = '`int()`/`float()`/`bool()` of a tensor breaks the graph'
    version_note = ('int()/float() do not break with capture_scalar_outputs=True (2.13): silent in a file that sets it.')
    doc = RuleDoc(
        what='Flags `int(t)`, `float(t)` and `bool(t)` where `t` is a tensor, in compiled code.',
        why='These call `Tensor.item()` under the hood: the same graph break as `.item()` (GB0124), and the resumed code specialises on the number.',
        example='scale = float(x.abs().max())\nreturn x / scale',
        use_instead='return x / x.abs().max()',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = float(x.abs().max())  # <-
        return x / n
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x / x.abs().max()
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = float(x.shape[-1])
        return x / n
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """int(t) / float(t) / bool(t) of a tensor."""
        if (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in ("int", "float", "bool")
                and len(node.args) == 1 and ctx.facts.is_tensor(node.args[0].value)):
            if node.func.value == "bool":
                return "GB0124"
            return None if ctx.module_facts.capture_scalar_outputs else "GB0124"
        return None
