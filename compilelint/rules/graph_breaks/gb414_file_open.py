"""GB414 file-open-graph-break: Flags `open(...)`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import OPEN_FUNCTIONS


class FileOpenGraphBreak(CallBreakRule):
    code = 'GB414'
    construct = Construct.PYTHON_LIBRARY_CALL
    also_gb_ids = ('GB0156',)
    name = 'file-open-graph-break'
    call_gate = gate(names=OPEN_FUNCTIONS)
    loop_fix = "do file I/O outside"
    gb_id = 'GB0059'
    severity = "warning"
    message = '`open()` breaks the graph; do file I/O outside compiled code'
    doc = RuleDoc(
        what='Flags `open(...)` in compiled code.',
        why="Dynamo cannot trace the builtin `open` (GB0059) nor the file's methods (GB0156); a `with open(...)` block makes Dynamo skip the frame.",
        example="with open('stats.txt', 'a') as f:\n    f.write(str(x.mean()))",
        use_instead='# return the statistic and write it from the training loop\nreturn y, x.mean()',
    )
    bad = (
        Example('''import torch
import os

class M(torch.nn.Module):
    def forward(self, x):
        f = open(os.devnull, "w")  # <-
        f.write("x")
        f.close()
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
        return "GB0059" if called_function(node, ctx, OPEN_FUNCTIONS) else None
