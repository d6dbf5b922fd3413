"""GB411 random-module-graph-break: Flags `random.random()`, `choice`, `shuffle`, `gauss`, `sample`, `seed`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import RANDOM_FUNCTIONS


class RandomModuleGraphBreak(CallBreakRule):
    code = 'GB411'
    construct = Construct.HOST_CLOCK_OR_RANDOM
    name = 'random-module-graph-break'
    call_gate = gate(names=RANDOM_FUNCTIONS)
    loop_fix = "use torch's RNG"
    gb_id = 'GB0007'
    severity = "warning"
    message = '`random` call breaks the graph; use `torch.rand`/`randint`'
    version_note = ('random.randint, random.randrange and random.uniform are traced on 2.13 (not flagged).')
    doc = RuleDoc(
        what='Flags `random.random()`, `choice`, `shuffle`, `gauss`, `sample`, `seed`... in compiled code.',
        why="Dynamo skips these functions of Python's `random` module (GB0007) and splits the graph; the value is also baked into the resumed code.",
        example='if random.random() < self.p:\n    x = x.flip(-1)',
        use_instead='flip = torch.rand((), device=x.device) < self.p\nx = torch.where(flip, x.flip(-1), x)',
    )
    bad = (
        Example('''import torch
import random

class M(torch.nn.Module):
    def forward(self, x):
        p = random.random()  # <-
        return x * p
'''),
    )
    good = (
        Example('''import torch
import random

class M(torch.nn.Module):
    def forward(self, x):
        p = torch.rand(())
        return x * p
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0007" if called_function(node, ctx, RANDOM_FUNCTIONS) else None
