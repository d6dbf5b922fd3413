"""GB425 std-stream-write-graph-break: Flags writes and flushes on `sys.stdout`/`sys.stderr`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.torchapi.dynamo import STD_STREAMS


class StdStreamWrite(CallBreakRule):
    code = 'GB425'
    name = 'std-stream-write-graph-break'
    call_gate = gate(names=STD_STREAMS)
    loop_fix = "write outside the compiled code"
    gb_id = 'GB0156'
    severity = "warning"
    message = '`sys.stdout`/`stderr` write breaks the graph'
    doc = RuleDoc(
        what='Flags writes and flushes on `sys.stdout`/`sys.stderr` in compiled code.',
        why="Dynamo cannot trace methods of the interpreter's stream objects (GB0156) and splits the graph.",
        example="sys.stdout.write('.')\nreturn self.body(x)",
        use_instead='return self.body(x)',
    )
    bad = (
        Example('''import torch
import sys

class M(torch.nn.Module):
    def forward(self, x):
        sys.stdout.write("step\\n")  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import sys

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0156" if called_function(node, ctx, STD_STREAMS) else None
