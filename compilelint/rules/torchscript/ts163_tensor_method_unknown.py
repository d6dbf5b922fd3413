"""TS163: a Tensor method TorchScript does not have (`x.new_tensor(...)`, `x.bool()`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import tensor_method
from compilelint.torchapi.script import TENSOR_METHOD_REPLACEMENTS, UNKNOWN_TENSOR_METHODS


class TensorMethodUnknownToScript(Rule):
    code = "TS163"
    name = "tensor-method-unknown-to-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    call_gate = gate(methods=set(UNKNOWN_TENSOR_METHODS))
    message = '`Tensor.{method}()` is not scriptable; {instead}'
    doc = RuleDoc(
        what=("Flags calls of `torch.Tensor` methods that TorchScript does not have (`new_tensor`, `bool`, "
              "`nelement`, ...)."),
        why=("TorchScript knows a Tensor method only through an operator schema; for these it has none, and "
             "scripting fails with `'Tensor' object has no attribute or method 'new_tensor'`, whatever the "
             "arguments."),
        example="def forward(self, x):\n    return x * x.new_tensor([1.0, 2.0])",
        use_instead="def forward(self, x):\n    return x * torch.tensor([1.0, 2.0], dtype=x.dtype, device=x.device)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        scale = x.new_tensor([1.0, 2.0, 3.0])  # <-
        return x * scale
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        keep = (x > 0).bool()  # <-
        return x[keep]
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        scale = torch.tensor([1.0, 2.0, 3.0], dtype=x.dtype, device=x.device)
        keep = (x > 0).to(torch.bool)
        return (x * scale)[keep]
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not tensor_method(node, ctx, UNKNOWN_TENSOR_METHODS):
            return
        method = node.func.attr.value
        instead = TENSOR_METHOD_REPLACEMENTS.get(method)
        instead = f"use `{brief(instead, 38)}`" if instead else "do it outside the scripted code"
        ctx.report(node, self.message.format(method=method, instead=instead))
