"""TS128: Python's `random` module."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct


class RandomModule(SemanticScriptRule):
    code = "TS128"
    construct = Construct.HOST_CLOCK_OR_RANDOM
    call_gate = gate(heads={"random"})
    name = "python-random-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is not scriptable; use `torch.rand`/`torch.randint`'
    doc = RuleDoc(
        what="Flags calls into Python's `random` module in code `torch.jit.script` compiles.",
        why="Scripting fails with `Python builtin <built-in method random of Random object> is currently not "
            "supported` (or a signature error for `random.randint`/`random.uniform`). Torch's own RNG is "
            "scriptable and honours `torch.manual_seed`.",
        example="if random.random() < self.p:",
        use_instead="if float(torch.rand(())) < self.p:",
    )
    bad = (
        Example('''
import random
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if random.random() < 0.5:  # <-
            return x
        return x * 2
'''),
        Example('''
from random import randint
import torch
class M(torch.nn.Module):
    def forward(self, x):
        k = randint(0, 3)  # <-
        return x * k
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if float(torch.rand(())) < 0.5:
            return x
        return x * int(torch.randint(0, 3, ()))
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func) or ""
        if name.startswith("random.") and not (type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            ctx.report(node, self.message.format(name=name))
