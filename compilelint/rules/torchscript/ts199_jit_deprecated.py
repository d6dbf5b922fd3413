"""TS199: `torch.jit.script` / `torch.jit.trace` are deprecated."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc

_DEPRECATED = {"torch.jit.script": "torch.jit.script", "torch.jit.trace": "torch.jit.trace",
               "torch.jit.trace_module": "torch.jit.trace_module"}


class JitDeprecated(Rule):
    code = "TS199"
    call_gate = gate(names=_DEPRECATED)
    body_gate = frozenset(name.rpartition(".")[2] for name in _DEPRECATED)
    name = "torch-jit-deprecated"
    family = "torchscript"
    targets = ("torchscript", "trace")
    severity = "note"
    applies_to = "anywhere"
    message = '`{name}` is deprecated; use `torch.export` or `torch.compile`'
    version_note = "DeprecationWarning verified on torch 2.13."
    doc = RuleDoc(
        what="Flags calls to `torch.jit.script`, `torch.jit.trace` and `torch.jit.trace_module`, and the "
             "`@torch.jit.script` decorator, anywhere in the file.",
        why="Current torch warns: `torch.jit.script is deprecated. Please switch to torch.compile or "
            "torch.export.` TorchScript gets no new features; `torch.export` (AOT graphs for C++/mobile "
            "runtimes via AOTInductor/ExecuTorch) and `torch.compile` are the supported paths.",
        example="scripted = torch.jit.script(model)\nscripted.save(\"model.pt\")",
        use_instead="ep = torch.export.export(model, (example,))\ntorch.export.save(ep, \"model.pt2\")",
    )
    bad = (
        Example('''
import torch
def double(x):
    return x * 2
def M(x):
    f = torch.jit.script(double)  # <-
    return f(x)
''', check="deprecation"),
        Example('''
import torch
def double(x):
    return x * 2
def M(x):
    f = torch.jit.trace(double, (x,))  # <-
    return f(x)
''', check="deprecation"),
        Example('''
import torch
@torch.jit.script  # <-
def double(x):
    return x * 2
def M(x):
    return double(x)
''', check="deprecation"),
    )
    good = (
        Example('''
import torch
class Double(torch.nn.Module):
    def forward(self, x):
        return x * 2
def M(x):
    ep = torch.export.export(Double(), (x,))
    return ep.module()(x)
''', check="deprecation"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = ctx.qualify(node.func)
        if name in _DEPRECATED:
            ctx.report(node.func, self.message.format(name=_DEPRECATED[name]))

    def _decorators(self, node: cst.FunctionDef | cst.ClassDef, ctx) -> None:  # noqa: ANN001
        for d in node.decorators:
            if type(d.decorator) is cst.Call:
                continue  # a call is reported by visit_Call
            name = ctx.qualify(d.decorator)
            if name in _DEPRECATED:
                ctx.report(d.decorator, self.message.format(name=_DEPRECATED[name]))

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        self._decorators(node, ctx)

    def visit_ClassDef(self, node: cst.ClassDef, ctx) -> None:  # noqa: ANN001
        self._decorators(node, ctx)
