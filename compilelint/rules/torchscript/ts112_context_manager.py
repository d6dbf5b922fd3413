"""TS112: `with` on a context manager TorchScript does not support."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.script_support import SUPPORTED_CONTEXT_MANAGERS
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.torchscript._semantic import SemanticScriptRule

# Verified to fail in a `with` (torch 2.13): their fixes.
_KNOWN = {
    "torch.enable_grad": "drop it (the caller's grad mode applies)",
    "torch.inference_mode": "use `with torch.no_grad():`",
    "torch.set_grad_enabled": "use `torch.no_grad()` or drop it",
    "torch.device": "pass `device=` to the factory calls",
    "torch.nn.attention.sdpa_kernel": "select the backend outside",
    "contextlib.nullcontext": "drop the `with`",
    "contextlib.suppress": "check the condition explicitly",
    "warnings.catch_warnings": "move it outside the scripted code",
    "open": "do file I/O outside the scripted code",
}


class UnsupportedContextManager(SemanticScriptRule):
    code = "TS112"
    name = "unsupported-context-manager-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`with {name}` is not scriptable; {fix}'
    doc = RuleDoc(
        what="Flags `with` statements whose context manager TorchScript cannot compile: `torch.enable_grad()`, "
             "`torch.inference_mode()`, `torch.set_grad_enabled(...)`, `torch.device(...)`, `open(...)`, "
             "`contextlib` helpers and `@contextlib.contextmanager` functions of the same file.",
        why="Scripting fails (`Unknown builtin op: aten::enable_grad`, `With item expression must return an "
            "object`, or errors inside contextlib). `torch.no_grad()`, `torch.autocast`, "
            "`torch.cuda.amp.autocast` and `torch.autograd.profiler.record_function` script and are not flagged.",
        example="with torch.inference_mode():\n    y = self.head(x)",
        use_instead="with torch.no_grad():\n    y = self.head(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        with torch.inference_mode():  # <-
            y = x * 2
        return y
'''),
        Example('''
import contextlib
import torch
@contextlib.contextmanager
def timed(name):
    yield
class M(torch.nn.Module):
    def forward(self, x):
        with timed("head"):  # <-
            y = x * 2
        return y
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        with torch.set_grad_enabled(False):  # <-
            y = x * 2
        return y
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        with torch.no_grad():
            y = x * 2
        with torch.autocast("cpu", enabled=False):
            y = y + 1
        with torch.autograd.profiler.record_function("head"):
            y = y * 3
        return y
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        if getattr(self, "_module", None) is not ctx.module:
            self._module = ctx.module
            self._local_cms = {
                s.name.value for s in ctx.module.body if type(s) is cst.FunctionDef
                and any(ctx.qualify(d.decorator) in ("contextlib.contextmanager", "contextlib.asynccontextmanager")
                        for d in s.decorators)}

    def visit_With(self, node: cst.With, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        for item in node.items:
            expr = item.item
            func = expr.func if type(expr) is cst.Call else expr
            name = ctx.qualify(func)
            if name is None or name in SUPPORTED_CONTEXT_MANAGERS:
                continue
            if name in _KNOWN and not (name == "open" and "open" in ctx.facts.env):
                ctx.report(item, self.message.format(name=brief(name, 28), fix=_KNOWN[name]))
            elif type(func) is cst.Name and name in self._local_cms and name not in ctx.facts.env:
                ctx.report(item, self.message.format(
                    name=brief(f"{name}(...)", 28), fix="use `@torch.jit.ignore`"))
