"""GB431 logging-function-graph-break: Flags `logging.debug/info/warning/error/...` (the module-level functions)"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import called_function
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import LOGGING_FUNCTIONS


class LoggingFunctionGraphBreak(CallBreakRule):
    code = 'GB431'
    construct = Construct.PYTHON_LOGGING
    name = 'logging-function-graph-break'
    call_gate = gate(heads={"logging"})
    loop_fix = "log outside the compiled code"
    gb_id = 'GB4841'
    severity = "warning"
    message = '`logging` call breaks the graph; log outside compiled code'
    version_note = ('Silent in a file that adds the function (e.g. logging.info) to reorderable_logging_functions; that removes the break on 2.13 (verified). torch 2.11 breaks the graph too, but inside the logging module (GB0156 at logging/__init__.py:2199), not on the line of the call; the bad example is marked min_torch 2.13.')
    doc = RuleDoc(
        what='Flags `logging.debug/info/warning/error/...` (the module-level functions) in compiled code.',
        why='Dynamo cannot trace into the root logger (GB4841) and splits the graph at each call.',
        example="logging.warning('falling back to slow path')",
        use_instead='# warn once in __init__',
    )
    bad = (
        Example('''import torch
import logging

class M(torch.nn.Module):
    def forward(self, x):
        logging.warning("slow path")  # <-
        return x + 1
''', min_torch="2.13"),
    )
    good = (
        Example('''import torch
import logging

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`logging.info(...)`, the module-level functions of `logging`."""
        q = called_function(node, ctx, LOGGING_FUNCTIONS)
        if q and not ctx.module_facts.reorderable_call(q):
            return "GB4841"
        return None
