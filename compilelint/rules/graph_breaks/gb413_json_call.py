"""GB413 json-graph-break: Flags `json.dumps`, `json.loads`, `json.dump`, `json.load`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import JSON_FUNCTIONS


class JsonGraphBreak(CallBreakRule):
    code = 'GB413'
    construct = Construct.PYTHON_LIBRARY_CALL
    name = 'json-graph-break'
    call_gate = gate(names=JSON_FUNCTIONS)
    loop_fix = "serialise outside"
    gb_id = 'GB0156'
    severity = "warning"
    version_note = ("torch 2.11 breaks the graph too, but with GB0007 reported at line 405 of a library file, not on the call's line; the bad example is marked min_torch 2.13.")
    message = '`json` call breaks the graph; serialise outside compiled code'
    doc = RuleDoc(
        what='Flags `json.dumps`, `json.loads`, `json.dump`, `json.load` in compiled code.',
        why='Dynamo cannot trace the C JSON encoder/decoder (GB0156, unsupported method call) and splits the graph.',
        example="meta = json.dumps({'shape': list(x.shape)})\nreturn self.proj(x)",
        use_instead='return self.proj(x)  # log metadata from the training loop',
    )
    bad = (
        Example('''import torch
import json

class M(torch.nn.Module):
    def forward(self, x):
        s = json.dumps({"n": 1})  # <-
        return x + len(s)
''', min_torch="2.13"),
    )
    good = (
        Example('''import torch
import json

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0156" if called_function(node, ctx, JSON_FUNCTIONS) else None
