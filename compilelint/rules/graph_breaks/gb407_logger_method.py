"""GB407 logger-method-graph-break: Flags `logger.info(...)`/`debug`/`warning`/... on a module-level `logging.getLogger(...)` logger"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import LOGGER_METHODS


class LoggerMethodGraphBreak(CallBreakRule):
    code = 'GB407'
    construct = Construct.PYTHON_LOGGING
    name = 'logger-method-graph-break'
    call_gate = gate(methods=LOGGER_METHODS)
    loop_fix = "log outside the compiled code"
    gb_id = 'GB0291'
    severity = "warning"
    message = 'logger call breaks the graph; log outside compiled code'
    version_note = ('Adding the bound method (or logging.Logger.info) to reorderable_logging_functions does NOT remove this break on 2.13 (verified).')
    doc = RuleDoc(
        what='Flags `logger.info(...)`/`debug`/`warning`/... on a module-level `logging.getLogger(...)` logger in compiled code.',
        why='Dynamo does not trace `logging.Logger` methods outside export (GB0291): each call splits the graph, even when the log level would drop the message.',
        example="logger.debug('shape %s', x.shape)\nreturn self.proj(x)",
        use_instead="if not torch.compiler.is_compiling():\n    logger.debug('shape %s', x.shape)\nreturn self.proj(x)",
    )
    bad = (
        Example('''import torch
import logging
log = logging.getLogger(__name__)

class M(torch.nn.Module):
    def forward(self, x):
        log.info("forward %s", 1)  # <-
        return x + 1
'''),
    )
    good = (
        Example('''import torch
import logging
log = logging.getLogger(__name__)

class M(torch.nn.Module):
    def forward(self, x):
        return x + 1
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`logger.info(...)` on a logging.Logger (reorderable_logging_functions does not cover these)."""
        if not (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in LOGGER_METHODS):
            return None
        owner = node.func.value
        if type(owner) is cst.Name and owner.value in ctx.module_facts.loggers and owner.value not in ctx.facts.env:
            return "GB0291"
        if type(owner) is cst.Call and ctx.qualify(owner.func) == "logging.getLogger":
            return "GB0291"
        return None
