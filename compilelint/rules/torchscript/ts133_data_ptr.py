"""TS133: `Tensor.data_ptr()`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class DataPtr(SemanticScriptRule):
    code = "TS133"
    call_gate = gate(methods={"data_ptr"})
    name = "data-ptr-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`Tensor.data_ptr()` is not scriptable'
    doc = RuleDoc(
        what="Flags `.data_ptr()` on tensors in code `torch.jit.script` compiles.",
        why="Scripting fails with `'Tensor' object has no attribute or method 'data_ptr'`; "
            "torch.export fails on it too (`Cannot access data pointer of Tensor`), which EX705 reports for "
            "export.",
        example="if x.data_ptr() == self.cached_ptr:",
        use_instead="# cache outside the compiled module, or on shape: if x.shape == self.cached_shape:",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        key = x.data_ptr()  # <-
        return x * 2
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        key = x.shape
        return x * 2
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if (ctx.function is not None and type(func) is cst.Attribute and func.attr.value == "data_ptr"
                and not node.args and ctx.facts.kind(func.value) in (Kind.TENSOR, Kind.UNKNOWN)):
            ctx.report(node)
