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
    message = ("A scalar `np.random.*` draw (no `size`) breaks the graph (GB0033): use torch's RNG (`torch.rand`, `torch.randn`, `torch.randint`) so the draw stays in the graph")
    doc = RuleDoc(
        what='Flags `numpy.random` draws that return a Python scalar (no `size`) in compiled code.',
        why="Dynamo traces many numpy calls through torch, but not numpy's random generator: it breaks the graph (GB0033).",
        example='noise = np.random.normal()',
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
        # An ndarray draw (with a size) is traced through torch's numpy support: no break in 2.13.
        Example('''import torch
import numpy as np

class M(torch.nn.Module):
    def forward(self, x):
        noise = torch.from_numpy(np.random.normal(0.0, 1.0, size=(3,)).astype("float32"))
        return x + noise
'''),
    )
