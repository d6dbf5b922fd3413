"""GB435 requires-grad-in-compiled-code: Flags `t.requires_grad_()` / `t.requires_grad_(True)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, tensor_method
from compilelint.semantic.frames import is_parameter


class RequiresGradInCompiled(CallBreakRule):
    code = 'GB435'
    name = 'requires-grad-in-compiled-code'
    call_gate = gate(methods={"requires_grad_"})
    gb_id = 'GB8985'
    older_gb_ids = {"2.11": "GB0125"}
    severity = "warning"
    message = '`.requires_grad_()` breaks the graph; set it on inputs'
    version_note = ('`requires_grad_(False)` is traced (not flagged). Verified on 2.13: intermediates GB8985, function inputs GB0125. torch 2.11 breaks the graph on the same line with GB0125 (Unsupported Tensor.requires_grad_() call) for an intermediate too.')
    doc = RuleDoc(
        what='Flags `t.requires_grad_()` / `t.requires_grad_(True)` in compiled code (not on `self.` parameters).',
        why='Dynamo cannot turn a tensor created inside the graph into an autograd leaf that escapes it (GB8985), nor flip requires_grad on a graph input (GB0125); it breaks the graph at the call.',
        example='mix = (eps * real + (1 - eps) * fake).requires_grad_(True)',
        use_instead='mix = eps * real + (1 - eps) * fake  # create the leaf outside the compiled function',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = (x * 2).requires_grad_()  # <-
        return y * 3
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = (x * 2).detach().requires_grad_(False)
        return y * 3
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`t.requires_grad_()` / `requires_grad_(True)` in compiled code (False is traced)."""
        if not (type(node) is cst.Call and tensor_method(node, ctx, ("requires_grad_",))):
            return None
        arg = argument(node, 0, "requires_grad")
        if type(arg) is cst.Name and arg.value == "False":
            return None
        receiver = node.func.value
        if type(receiver) is cst.Attribute and type(receiver.value) is cst.Name and receiver.value.value == "self":
            return None  # a parameter/buffer of the module: not verified
        return "GB0125" if is_parameter(receiver, ctx) else "GB8985"
