"""GB406 debugger-graph-break: Flags `breakpoint()`, `pdb.set_trace()` and `ipdb.set_trace()`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule, remove_statement_fix
from compilelint.semantic.calls import called_function
from compilelint.torchapi.dynamo import DEBUGGER_CALLS


class DebuggerGraphBreak(CallBreakRule):
    code = 'GB406'
    also_gb_ids = ('GB0007',)
    name = 'debugger-graph-break'
    call_gate = gate(names=DEBUGGER_CALLS)
    loop_fix = "remove the debugger call"
    gb_id = 'GB0059'
    severity = "warning"
    message = 'debugger call breaks the graph; remove it'
    version_note = ('pdb.set_trace() was seen breaking with GB0007 on 2.13 by a manual probe; the harness example uses breakpoint() (with PYTHONBREAKPOINT=0) since pdb would wait for input.')
    has_fix = True
    doc = RuleDoc(
        what='Flags `breakpoint()`, `pdb.set_trace()` and `ipdb.set_trace()` in compiled code.',
        why='Dynamo cannot trace into the debugger, so it breaks the graph there; a forgotten breakpoint also stops a training job.',
        example='breakpoint()\nreturn self.head(x)',
        use_instead='return self.head(x)',
        fix_safety=("Unsafe: removing the call removes the stop in the debugger, which is what the line is for."),
    )
    bad = (
        Example('''import torch
import os
os.environ["PYTHONBREAKPOINT"] = "0"  # the example must not stop the test run

class M(torch.nn.Module):
    def forward(self, x):
        breakpoint()  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        q = called_function(node, ctx, DEBUGGER_CALLS)
        if q == "breakpoint":
            return "GB0059"
        return "GB0007" if q else None

    def fix_for(self, node, ctx):  # noqa: ANN001
        return remove_statement_fix(node, ctx, 'Remove the debugger call')
