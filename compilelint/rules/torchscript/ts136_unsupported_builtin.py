"""TS136: Python builtins TorchScript does not have."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.script_support import BUILTIN_UNSUPPORTED
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class UnsupportedBuiltin(SemanticScriptRule):
    code = "TS136"
    call_gate = gate(bare=BUILTIN_UNSUPPORTED)
    name = "unsupported-builtin-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'builtin `{name}()` is not scriptable; {fix}'
    doc = RuleDoc(
        what="Flags calls to Python builtins that TorchScript does not support: `id`, `setattr`, `delattr`, "
             "`vars`, `dir`, `open`, `iter`, `next`, `map`, `filter`, `reversed`, `callable`, `repr`, "
             "`format`, `issubclass`, `globals`, `locals`, `eval`, `exec`, `input`, `breakpoint`, `bytes`, "
             "`object`, ... (each checked on torch 2.13 by tests/test_torchscript_tables.py).",
        why="Scripting fails with `Python builtin <built-in function id> is currently not supported in "
            "Torchscript` or a signature error (`reversed(Tensor 0) -> Tensor 0`); `object()` scripts but "
            "raises when called.",
        example="key = id(x)\nsetattr(self, \"last\", y)",
        use_instead="# no identity keys in scripted code\nself.last = y",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        key = id(x)  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0
    def forward(self, x):
        setattr(self, "scale", 2.0)  # <-
        return x * self.scale
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        xs = [x, x * 2]
        for t in reversed(xs):  # <-
            x = x + t
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0
    def forward(self, x):
        self.scale = 2.0
        xs = [x, x * 2]
        for i in range(len(xs) - 1, -1, -1):
            x = x + xs[i]
        return x * self.scale
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if ctx.function is None or type(func) is not cst.Name:
            return
        name = func.value
        fix = BUILTIN_UNSUPPORTED.get(name)
        if fix is None or name in ctx.facts.env or name in ctx.facts.aliases or name in self._shadowed(ctx):
            return
        ctx.report(node, self.message.format(name=name, fix=fix))

    def _shadowed(self, ctx) -> set[str]:  # noqa: ANN001
        """Module-level functions/classes with a builtin's name."""
        if getattr(self, "_module", None) is not ctx.module:
            self._module = ctx.module
            self._names = {s.name.value for s in ctx.module.body if type(s) in (cst.FunctionDef, cst.ClassDef)}
        return self._names
