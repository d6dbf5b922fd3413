"""TR313: Python `random` / `time` / `numpy.random` values inside traced code."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct

_PREFIXES = ("random.", "time.", "numpy.random.", "datetime.", "secrets.")


class PythonRandomTime(Rule):
    code = "TR313"
    construct = Construct.HOST_CLOCK_OR_RANDOM
    call_gate = gate(heads={p.split(".")[0] for p in _PREFIXES})
    name = "trace-frozen-python-random"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '`{fn}()` while tracing: its value becomes a constant'
    doc = RuleDoc(
        what="Flags calls into Python's `random`, `time`, `datetime` and `numpy.random` in traced code.",
        why=("These values never pass through a tensor op, so the tracer sees only the number they produced "
             "once. The traced model repeats that 'random' value (or timestamp) forever, with no warning."),
        example="if random.random() < self.p:\n    x = x.flip(-1)",
        use_instead="flip = torch.rand(()) < self.p\nx = torch.where(flip, x.flip(-1), x)",
    )
    bad = (
        Example('''
import random
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * random.uniform(0.5, 1.5)  # <-
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
    )
    good = (
        Example('''
import random
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = random.Random(0).uniform(0.5, 1.5)
    def forward(self, x, noise):
        return x * self.gain + noise
''', inputs="[(torch.ones(3), torch.zeros(3)), (torch.ones(3), torch.ones(3))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = ctx.qualify(node.func) or ""
        if name.startswith(_PREFIXES) and not name.endswith(("sleep", "seed")):
            ctx.report(node, self.message.format(fn=name))
