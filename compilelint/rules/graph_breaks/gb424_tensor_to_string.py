"""GB424 tensor-to-string-graph-break: Flags `str(t)` and `repr(t)` of a tensor, and `str(t.shape)`,"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.frames import is_parameter


def _in_forward(ctx) -> bool:  # noqa: ANN001
    """Parameters of `forward` are tensors unless annotated otherwise; elsewhere an unannotated parameter
    is as likely a string or an exception type (`str(err_type)`)."""
    return ctx.function is not None and ctx.function.name.value == "forward"


class TensorToString(CallBreakRule):
    code = 'GB424'
    also_gb_ids = ('GB0569',)
    name = 'tensor-to-string-graph-break'
    call_gate = gate(names={"str", "repr"})
    loop_fix = "format shapes, not values"
    gb_id = 'GB0059'
    severity = "warning"
    message = '`str()`/`repr()` of a tensor breaks the graph'
    version_note = ('On 2.13 `str(x.shape)` breaks (GB0059); `str(x.dtype)` does not. f-strings are not flagged: f"{x.shape}" alone is traced, but used with dynamic shapes it can skip the frame (GB0088).')
    doc = RuleDoc(
        what='Flags `str(t)` and `repr(t)` of a tensor, and `str(t.shape)`, in compiled code.',
        why='Dynamo cannot trace the builtin conversions of tensors and sizes to text and breaks the graph there.',
        example="msg = 'got ' + str(x.shape)",
        use_instead='# log x.shape from the caller, outside the compiled code',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = str(x)  # <-
        return x + len(s)
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = str(x.shape)  # <-
        return x + len(s)
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = str(x.dtype)
        return x + len(s)
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        q = called_function(node, ctx, {"str", "repr"})
        if q and len(node.args) == 1 and not (is_parameter(node.args[0].value, ctx) and not _in_forward(ctx)):
            kind = ctx.facts.kind(node.args[0].value)
            if kind is Kind.TENSOR:
                return "GB0059" if q == "str" else "GB0569"
            if kind is Kind.SHAPE and q == "str":
                return "GB0059"  # str(x.shape) breaks too; f"{x.shape}" does not
        return None
