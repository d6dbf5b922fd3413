"""TS131: `logging` calls."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct

_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "getLogger"}


def _module_loggers(module: cst.Module, qualify) -> set[str]:  # noqa: ANN001
    names = set()
    for stmt in module.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if (type(small) is cst.Assign and type(small.value) is cst.Call
                        and qualify(small.value.func) == "logging.getLogger"):
                    for t in small.targets:
                        if type(t.target) is cst.Name:
                            names.add(t.target.value)
    return names


class LoggingCall(SemanticScriptRule):
    code = "TS131"
    construct = Construct.PYTHON_LOGGING
    call_gate = gate(methods=_METHODS)
    name = "logging-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is not scriptable; log from the caller'
    doc = RuleDoc(
        what="Flags calls to `logging` functions and to module-level loggers (`logger = logging.getLogger(...)`) "
             "in code `torch.jit.script` compiles.",
        why="Scripting fails: `logging.info` takes `*args`/`**kwargs` (`Compiled functions can't take variable "
            "number of arguments`), and a `Logger` object is not a TorchScript value (`attribute lookup is not "
            "defined on python value of type 'Logger'`). `warnings.warn` and `print` script.",
        example='logger.info("boxes: %d", n)',
        use_instead='warnings.warn("boxes: " + str(n))   # or log after the call, in Python',
    )
    bad = (
        Example('''
import logging
import torch
logger = logging.getLogger(__name__)
class M(torch.nn.Module):
    def forward(self, x):
        logger.info("forward")  # <-
        return x
'''),
        Example('''
import logging
import torch
class M(torch.nn.Module):
    def forward(self, x):
        logging.debug("forward")  # <-
        return x
'''),
    )
    good = (
        Example('''
import logging
import warnings
import torch
logger = logging.getLogger(__name__)
class M(torch.nn.Module):
    def forward(self, x):
        if x.dim() != 2:
            warnings.warn("expected a 2-d input")
        self.log_shape(x)
        return x
    @torch.jit.ignore
    def log_shape(self, x: torch.Tensor):
        logger.info("shape %s", x.shape)
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        if getattr(self, "_module", None) is not ctx.module:
            self._module = ctx.module
            self._loggers = _module_loggers(ctx.module, ctx.qualify)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or type(node.func) is not cst.Attribute:
            return
        name = ctx.qualify(node.func) or ""
        owner = node.func.value
        if name.startswith("logging.") and name.count(".") == 1 and node.func.attr.value in _METHODS:
            ctx.report(node, self.message.format(name=name))
        elif (type(owner) is cst.Name and owner.value in self._loggers and owner.value not in ctx.facts.env
              and node.func.attr.value in _METHODS):
            ctx.report(node, self.message.format(name=f"{owner.value}.{node.func.attr.value}"))
