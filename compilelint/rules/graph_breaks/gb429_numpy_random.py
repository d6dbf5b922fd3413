"""GB429 numpy-random-graph-break: Flags calls to `numpy.random` functions"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class NumpyRandomGraphBreak(CallBreakRule):
    code = 'GB429'
    name = 'numpy-random-graph-break'
    detector = 'numpy_random'
    gb_id = 'GB0033'
    severity = "warning"
    message = ("`np.random.*` breaks the graph (GB0033): use torch's RNG (`torch.rand`, `torch.randn`, `torch.randint`) so the draw stays in the graph")
    doc = RuleDoc(
        what='Flags calls to `numpy.random` functions in compiled code.',
        why="Dynamo traces many numpy calls through torch, but not numpy's random generator: it breaks the graph (GB0033).",
        example='noise = np.random.normal(size=x.shape)',
        use_instead='noise = torch.randn_like(x)',
    )
    bad = (
        Example('''import torch
import numpy as np

class M(torch.nn.Module):
    def forward(self, x):
        noise = np.random.rand()  # <-
        return x + noise
'''),
    )
    good = (
        Example('''import torch
import numpy as np

class M(torch.nn.Module):
    def forward(self, x):
        noise = torch.rand(())
        return x + noise
'''),
    )
