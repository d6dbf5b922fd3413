"""GB423 data-dependent-operator: Flags `torch.equal`, `torch.allclose` (and the methods), `math.*` functions applied to tensors and `torch._assert` on a tensor"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name, tensor_method
from compilelint.semantic.constructs import Construct


class DataDependentOperator(CallBreakRule):
    code = 'GB423'
    construct = Construct.DATA_DEPENDENT_VALUE
    name = 'data-dependent-operator'
    call_gate = gate(names={"torch.equal", "torch.allclose", "torch._assert"}, heads={"math"},
                     methods={"equal", "allclose"})
    loop_fix = "keep the result on device"
    gb_id = 'GB0033'
    severity = "warning"
    version_note = ('torch._assert on a tensor condition verified on 2.13 and 2.11 (GB0033; 2.11 by the harness); '
                    '`assert cond` statements and torch._assert_async are traced (a runtime assert).')
    message = 'Python value from tensor data breaks the graph; keep a tensor'
    doc = RuleDoc(
        what='Flags `torch.equal`, `torch.allclose` (and the methods), `math.*` functions applied to tensors and `torch._assert(cond, msg)` with a tensor condition in compiled code.',
        why=('These return Python values computed from tensor data; Dynamo cannot put them in the graph and breaks'
             ' there (GB0033, data dependent operator). Use the tensor form (`(a == b).all()`, '
             '`torch.isclose(...).all()`, `torch.sqrt`, `torch._assert_async`) and keep the result on device.'),
        example='scale = math.sqrt(x.pow(2).sum())',
        use_instead='scale = torch.sqrt(x.pow(2).sum())',
    )
    bad = (
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = math.sqrt(x.abs().sum())  # <-
        return x / scale
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, depth):
        torch._assert((depth >= 0).all(), "negative depth")  # <-
        return depth.clamp(max=80.0) / 80.0
''', inputs="[(torch.rand(4, 6),), (torch.rand(4, 6),)]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, depth):
        torch._assert_async((depth >= 0).all())
        return depth.clamp(max=80.0) / 80.0
''', inputs="[(torch.rand(4, 6),), (torch.rand(4, 6),)]"),
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = torch.sqrt(x.abs().sum())
        return x / scale
'''),
        Example('''import torch
import math

class M(torch.nn.Module):
    def forward(self, x):
        scale = math.sqrt(x.shape[-1])
        return x / scale
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """torch.equal/allclose (Python bool out of tensor data), math.* of a tensor, and torch._assert on a tensor
        (`if not cond: raise` in Python; GB0033; torch._assert_async is traced)."""
        if type(node) is not cst.Call:
            return None
        q = call_name(node, ctx)
        if q in ("torch.equal", "torch.allclose") or tensor_method(node, ctx, ("equal", "allclose")):
            return "GB0033"
        if q.startswith("math.") and any(ctx.facts.is_tensor(a.value) for a in node.args):
            return "GB0033"
        if q == "torch._assert" and node.args and node.args[0].keyword is None and ctx.facts.is_tensor(node.args[0].value):
            return "GB0033"
        return None
