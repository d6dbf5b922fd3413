"""TS125: calls into numpy."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.semantic.constructs import Construct


class NumpyCall(SemanticScriptRule):
    code = "TS125"
    construct = Construct.NUMPY
    call_gate = gate(heads={"numpy"})
    name = "numpy-call-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'numpy call `{name}` is not scriptable; use `torch.{attr}`'
    doc = RuleDoc(
        what="Flags calls to `numpy` functions in code `torch.jit.script` compiles. numpy constants "
             "(`np.pi`, `np.inf`) and dtypes as values script and are not flagged.",
        why="Scripting fails with a TypeError (`cannot create weak reference to 'numpy.ufunc' object`) that "
            "names no source line, or `Python builtin <built-in function array> is currently not supported`.",
        example="return torch.from_numpy(np.clip(x.numpy(), 0, 1))",
        use_instead="return torch.clamp(x, 0, 1)",
    )
    bad = (
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * float(np.sqrt(2.0))  # <-
'''),
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return np.clip(x, 0, 1)  # <-
'''),
    )
    good = (
        Example('''
import math
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if torch.jit.is_scripting():
            return torch.clamp(x, 0, 1) * math.sqrt(2.0) * np.pi
        return torch.from_numpy(np.clip(x.numpy(), 0, 1))
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func) or ""
        if name.startswith("numpy.") and not (type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            attr = name.rsplit(".", 1)[-1]
            ctx.report(node, self.message.format(name=name.replace("numpy.", "np.", 1), attr=attr))
