"""TS129: Python's `time` module."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct


class TimeModule(SemanticScriptRule):
    code = "TS129"
    construct = Construct.HOST_CLOCK_OR_RANDOM
    call_gate = gate(heads={"time"})
    name = "python-time-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is not scriptable; time the module from the caller'
    doc = RuleDoc(
        what="Flags calls into Python's `time` module (`time.time()`, `time.perf_counter()`, `time.sleep()`) in "
             "code `torch.jit.script` compiles.",
        why="Scripting fails with `Python builtin <built-in function time> is currently not supported in "
            "Torchscript`.",
        example="t0 = time.perf_counter()\ny = self.body(x)\nself.last_ms = (time.perf_counter() - t0) * 1e3",
        use_instead="with torch.autograd.profiler.record_function(\"body\"):\n    y = self.body(x)",
    )
    bad = (
        Example('''
import time
import torch
class M(torch.nn.Module):
    def forward(self, x):
        t0 = time.perf_counter()  # <-
        return x * 2
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        with torch.autograd.profiler.record_function("body"):
            y = x * 2
        return y
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func) or ""
        if name.startswith("time.") and name.count(".") == 1 and not (
                type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            ctx.report(node, self.message.format(name=name))
