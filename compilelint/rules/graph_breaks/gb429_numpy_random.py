"""GB429 numpy-random-graph-break: Flags calls to `numpy.random` functions"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import NUMPY_RANDOM_SIZE_AT


class NumpyRandomGraphBreak(CallBreakRule):
    code = 'GB429'
    construct = Construct.HOST_CLOCK_OR_RANDOM
    name = 'numpy-random-graph-break'
    call_gate = gate(heads={"numpy"})
    loop_fix = "use torch's RNG"
    gb_id = 'GB0033'
    severity = "warning"
    message = "scalar `np.random` draw breaks the graph; use torch's RNG"
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

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call:
            q = call_name(node, ctx)
            if q.startswith("numpy.random.") and q.rsplit(".", 1)[-1][:1].islower():
                fn = q.rsplit(".", 1)[-1]
                if fn == "permutation":
                    return "GB0294"
                positional = [a for a in node.args if a.keyword is None and not a.star]
                has_size = any(a.keyword is not None and a.keyword.value == "size" for a in node.args)
                size_at = NUMPY_RANDOM_SIZE_AT.get(fn)
                if has_size or (size_at is not None and len(positional) > size_at):
                    return None  # an ndarray draw: traced, no break
                return "GB0033"
        return None
