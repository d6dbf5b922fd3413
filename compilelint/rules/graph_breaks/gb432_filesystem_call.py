"""GB432 filesystem-graph-break: Flags os.path.exists/isfile/isdir/getsize, os.listdir, os.makedirs, os.stat, os.remove"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import FILESYSTEM_FUNCTIONS


class FilesystemGraphBreak(CallBreakRule):
    code = 'GB432'
    construct = Construct.PYTHON_LIBRARY_CALL
    name = 'filesystem-graph-break'
    call_gate = gate(names=FILESYSTEM_FUNCTIONS)
    loop_fix = "check files in __init__"
    gb_id = 'GB0007'
    severity = "warning"
    message = 'filesystem call breaks the graph; check files outside'
    doc = RuleDoc(
        what='Flags os.path.exists/isfile/isdir/getsize, os.listdir, os.makedirs, os.stat, os.remove... in compiled code.',
        why='These reach C functions (os.stat) that Dynamo skips (GB0007), splitting the graph at each call.',
        example='if os.path.exists(self.cache):\n    ...',
        use_instead='self.has_cache = os.path.exists(cache)  # in __init__',
    )
    bad = (
        Example('''import torch
import os

class M(torch.nn.Module):
    def forward(self, x):
        there = os.path.exists("/nonexistent/ckpt.pt")  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import os

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0007" if called_function(node, ctx, FILESYSTEM_FUNCTIONS) else None
