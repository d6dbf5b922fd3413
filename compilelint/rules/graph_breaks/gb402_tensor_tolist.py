"""GB402 tensor-tolist-graph-break: Flags `.tolist()` on a tensor"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import tensor_method
from compilelint.semantic.constructs import Construct


class TensorTolistGraphBreak(CallBreakRule):
    code = 'GB402'
    construct = Construct.DATA_DEPENDENT_VALUE
    also_gb_ids = ('GB0033',)
    name = 'tensor-tolist-graph-break'
    call_gate = gate(methods={"tolist"})
    loop_fix = "index the tensor instead"
    reads_tensor_data = True
    gb_id = 'GB0109'
    severity = "warning"
    message = '`.tolist()` breaks the graph; index or slice the tensor instead'
    version_note = ('capture_scalar_outputs=True does not remove the break for float tensors (2.13).')
    doc = RuleDoc(
        what='Flags `.tolist()` on a tensor in compiled code.',
        why='`.tolist()` materialises every element as a Python number: Dynamo cannot keep that in the graph, so it splits the graph, and the resumed code specialises on the values (recompiles when they change).',
        example='w = weights.tolist()\nreturn x * w[0]',
        use_instead='return x * weights[0]',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        vals = x.sum(0).tolist()  # <-
        return x * vals[0]
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        vals = x.sum(0)
        return x * vals[0]
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and not node.args and tensor_method(node, ctx, ("tolist",)):
            return "GB0109"  # GB0033 for integer tensors; capture_scalar_outputs does not help float ones
        return None
