"""TS137: `type(...)`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class TypeBuiltin(SemanticScriptRule):
    code = "TS137"
    call_gate = gate(bare={"type"})
    name = "type-builtin-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`type(...)` as a value is not scriptable; use `isinstance`'
    doc = RuleDoc(
        what="Flags calls to the builtin `type(obj)` in code `torch.jit.script` compiles.",
        why="`type(x) == torch.Tensor` fails to script (`builtin cannot be used as a value`), "
            "`type(self).__name__` fails too, and a bare `type(x)` scripts but raises when called.",
        example="if type(x) == torch.Tensor:",
        use_instead="if isinstance(x, torch.Tensor):",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if type(x) == torch.Tensor:  # <-
            return x
        return x * 2
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        t = type(x)  # <-
        return x
''', check="script-call"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if isinstance(x, torch.Tensor):
            return x
        return x * 2
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if (ctx.function is not None and type(func) is cst.Name and func.value == "type" and len(node.args) == 1
                and "type" not in ctx.facts.env and "type" not in ctx.facts.aliases):
            ctx.report(node)
