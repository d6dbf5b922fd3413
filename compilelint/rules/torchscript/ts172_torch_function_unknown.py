"""TS172: a `torch.*` function TorchScript has no operator for (`torch.get_default_dtype()`, `torch.is_tensor`)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.calls import call_name
from compilelint.semantic.script_types import compiled_by_script
from compilelint.torchapi.script import UNKNOWN_TORCH_FUNCTIONS

_INSTEAD = {
    "torch.get_default_dtype": "use a tensor's `x.dtype`",
    "torch.is_tensor": "use `isinstance(v, torch.Tensor)`",
    "torch.unravel_index": "compute the indices with `//` and `%`",
    "torch.from_numpy": "convert outside the scripted code",
    "torch.asarray": "use `torch.tensor(...)` or `torch.as_tensor(...)`",
}


class TorchFunctionUnknownToScript(Rule):
    code = "TS172"
    name = "torch-function-unknown-to-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    call_gate = gate(names=set(UNKNOWN_TORCH_FUNCTIONS))
    message = '`{name}` is not scriptable; {instead}'
    doc = RuleDoc(
        what=("Flags calls of `torch` functions TorchScript has no operator for: `torch.get_default_dtype()`, "
              "`torch.is_tensor()`, `torch.unravel_index()`, `torch.set_num_threads()`, ..."),
        why=("TorchScript resolves `torch.<name>` to an ATen operator; for these there is none, and scripting fails "
             "with `Unknown builtin op: aten::get_default_dtype`, whatever the arguments."),
        example="def forward(self, x):\n    return x.to(torch.get_default_dtype())",
        use_instead="def forward(self, x):\n    return x.to(torch.float32)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if not x.is_floating_point():
            x = x.to(torch.get_default_dtype())  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if not torch.jit.is_scripting():
            x = x.to(torch.get_default_dtype())
        if not x.is_floating_point():
            x = x.to(torch.float32)
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = call_name(node, ctx)
        if name in UNKNOWN_TORCH_FUNCTIONS and ctx.function is not None and compiled_by_script(ctx.function, node):
            instead = _INSTEAD.get(name, "call it outside the scripted code")
            ctx.report(node, self.message.format(name=name, instead=instead))
