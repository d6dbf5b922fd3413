"""TS139: `super().method(...)` (`Base.method(self, ...)` is TS156's)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class SuperCall(SemanticScriptRule):
    code = "TS139"
    name = "super-call-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{form}` is not scriptable; use a helper method'
    doc = RuleDoc(
        what="Flags `super().m(...)` and `super(C, self).m(...)` in code `torch.jit.script` compiles "
             "(`super().__init__()` in `__init__` is not compiled and is fine; `Base.m(self, ...)` is TS156).",
        why="Scripting fails: `super()` is not a TorchScript value (`'Tensor' object has no attribute or "
            "method 'forward'`, `Python type cannot be used as a value`).",
        example="def forward(self, x):\n    return super().forward(x) + 1",
        use_instead="# in the base: def _base_forward(self, x): ...; forward calls it\n"
                    "def forward(self, x):\n    return self._base_forward(x) + 1",
    )
    bad = (
        Example('''
import torch
class Base(torch.nn.Module):
    def forward(self, x):
        return x * 2
class M(Base):
    def forward(self, x):
        return super().forward(x) + 1  # <-
'''),
        Example('''
import torch
class Base(torch.nn.Module):
    def forward(self, x):
        return x * 2
class M(Base):
    def forward(self, x):
        return super(M, self).forward(x) + 1  # <-
'''),
    )
    good = (
        Example('''
import torch
class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
    def _base_forward(self, x):
        return x * 2
    def forward(self, x):
        return self._base_forward(x)
class M(Base):
    def forward(self, x):
        return self._base_forward(x) + 1
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if ctx.function is None or ctx.class_node is None or type(func) is not cst.Attribute:
            return
        owner = func.value
        if type(owner) is cst.Call and type(owner.func) is cst.Name and owner.func.value == "super":
            ctx.report(node, self.message.format(form=f"super().{func.attr.value}(...)"))
            return
