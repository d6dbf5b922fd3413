"""TS126: `Tensor.numpy()`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct


class TensorNumpy(SemanticScriptRule):
    code = "TS126"
    construct = Construct.NUMPY
    call_gate = gate(methods={"numpy"})
    name = "tensor-numpy-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`Tensor.numpy()` is not scriptable; stay in torch'
    doc = RuleDoc(
        what="Flags `.numpy()` on tensors in code `torch.jit.script` compiles.",
        why="Scripting fails with `'Tensor' object has no attribute or method 'numpy'`; "
            "torch.export fails on it too, which EX704 reports for export. (Dynamo in 2.13 traces it through "
            "numpy; TorchScript and export do not.)",
        example="scores = x.detach().cpu().numpy()",
        use_instead="scores = x.detach()",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        a = x.detach().cpu().numpy()  # <-
        return x * float(a.max())
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        a = x.detach()
        return x * a.max()
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if (ctx.function is not None and type(func) is cst.Attribute and func.attr.value == "numpy"
                and not node.args and ctx.facts.kind(func.value) in (Kind.TENSOR, Kind.UNKNOWN)):
            if ctx.qualify(func.value) in ("numpy", "torch"):
                return
            ctx.report(node)
