"""TS127: `math` functions TorchScript has no builtin for."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.script_support import MATH_UNSUPPORTED
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule

_FIXES = {"log2": "math.log(v, 2.0)", "isclose": "abs(a - b) <= tol", "prod": "a loop, or `torch.prod(torch.tensor(xs))`",
          "hypot": "math.sqrt(a * a + b * b)", "trunc": "int(v)", "exp2": "2.0 ** v", "cbrt": "v ** (1.0 / 3.0)",
          "isqrt": "int(math.sqrt(n))", "fsum": "sum(xs)"}


class MathUnsupported(SemanticScriptRule):
    code = "TS127"
    call_gate = gate(heads={"math"})
    name = "math-unsupported-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`math.{attr}` is not scriptable; use {fix}'
    doc = RuleDoc(
        what="Flags calls to `math` functions that TorchScript does not support (`math.log2`, `math.prod`, "
             "`math.isclose`, `math.hypot`, `math.comb`, `math.lcm`, `math.trunc`, ...). `math.sqrt`, "
             "`math.log`, `math.floor`, `math.pi` and the rest of torch's builtin table script.",
        why="Scripting fails with `Python builtin <built-in function log2> is currently not supported in "
            "Torchscript`.",
        example="levels = int(math.log2(stride))",
        use_instead="levels = int(math.log(stride, 2.0))",
    )
    bad = (
        Example('''
import math
import torch
class M(torch.nn.Module):
    def forward(self, x):
        levels = int(math.log2(x.size(-1)))  # <-
        return x * levels
'''),
        Example('''
import math
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = math.prod([x.size(0), x.size(1)])  # <-
        return x.reshape(n)
'''),
    )
    good = (
        Example('''
import math
import torch
class M(torch.nn.Module):
    def forward(self, x):
        levels = int(math.log(x.size(-1), 2.0)) + math.floor(math.sqrt(4.0))
        return x * levels * math.pi
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func) or ""
        if name.startswith("math.") and name.count(".") == 1:
            attr = name[len("math."):]
            if attr in MATH_UNSUPPORTED:
                ctx.report(node, self.message.format(attr=attr, fix=f"`{_FIXES[attr]}`" if attr in _FIXES
                                                     else "plain arithmetic or a torch op"))
