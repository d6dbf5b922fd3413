from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.semantic.frames import mentions_dynamic_size, reaches_entry_values


def _numpy_size_argument(call: cst.Call, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """The first argument of a NumPy call (not numpy.random) in a compiled frame's entry that is, or is computed
    from, a tensor size (`np.ceil(h / 32)`, `np.sqrt(n)`, `np.prod(x.shape)`). NumPy on a size specialises
    it: every distinct size recompiles (verified on 2.13: np.ceil/floor/sqrt/log2/round/maximum/prod, five
    sizes, four recompiles each; math.ceil, math.prod, round, max and // on the same sizes: one)."""
    name = call_name(call, ctx)
    if not name.startswith("numpy.") or name.startswith("numpy.random") or not reaches_entry_values(ctx):
        return None
    for arg in call.args:
        if mentions_dynamic_size(arg.value, ctx):
            return arg.value
    return None


class NumpyMathOnSize(Rule):
    code = "RC513"
    construct = Construct.NUMPY
    name = "numpy-math-on-size"
    call_gate = gate(heads={"numpy"})
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'NumPy on size `{size}`: each new size recompiles; use `math`'
    version_note = ("Verified on 2.13 (its examples also on 2.11) with five input sizes: np.ceil, np.floor, np.sqrt, np.log2, np.round, "
                    "np.maximum and np.prod of a size or a shape gave four recompiles each (np.array of a shape also "
                    "broke the graph, GB0033); math.ceil, math.floor, math.sqrt, math.log2, math.prod, round, int, "
                    "max and // gave one (automatic dynamic).")
    doc = RuleDoc(
        what=("Flags, in a module's `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, a NumPy function called on a tensor "
              "size or shape, or on arithmetic of one (`np.ceil(h / 32)`, `np.sqrt(n)`, `np.prod(x.shape)`)."),
        why=(('Detection and segmentation code pads inputs to a multiple of the stride with `int(np.ceil(h / 32)) *'
              ' 32`, and ViTs take the patch grid side as `int(np.sqrt(n))`. When the input size changes, Dynamo '
              'would recompile once and make the size dynamic; NumPy cannot compute with a symbolic size, so Dynamo'
              " specialises it and every new size compiles again (the math module's functions are traced "
              'symbolically). Use `math.ceil`/`math.floor`/`math.sqrt`/`math.prod`, `round`, `max`, or `(h + 31) //'
              ' 32`, which keep the size dynamic.')),
        example="h = x.shape[-1]\npad = int(np.ceil(h / 32)) * 32 - h",
        use_instead="h = x.shape[-1]\npad = math.ceil(h / 32) * 32 - h",
    )
    bad = (
        Example('''
import numpy as np
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        h = x.shape[-1]
        target = int(np.ceil(h / 32)) * 32  # <-
        return F.pad(x, (0, target - h))
''', inputs="[(torch.randn(2, 3, n),) for n in (40, 50, 60, 70)]", check="recompile-each"),
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, tokens):
        side = int(np.sqrt(tokens.shape[1]))  # <-
        return tokens.reshape(tokens.shape[0], side, side, -1).mean((1, 2))
''', inputs="[(torch.randn(2, s * s, 8),) for s in (4, 5, 6, 7)]", check="recompile-each"),
        Example('''
import numpy as np
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def _padded(self, h):
        return int(np.ceil(h / 16)) * 16  # <-

    def forward(self, x):
        h = x.shape[-1]
        return F.pad(x, (0, self._padded(h) - h))
''', inputs="[(torch.randn(1, 3, n),) for n in (40, 44, 52, 60)]", check="recompile-each"),
    )
    good = (
        Example('''
import math
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        h = x.shape[-1]
        target = math.ceil(h / 32) * 32
        return F.pad(x, (0, target - h))
''', inputs="[(torch.randn(2, 3, n),) for n in (40, 50, 60, 70)]", check="recompile-each"),
        Example('''
import math
import torch
class M(torch.nn.Module):
    def forward(self, tokens):
        side = math.isqrt(tokens.shape[1])
        return tokens.reshape(tokens.shape[0], side, side, -1).mean((1, 2))
''', inputs="[(torch.randn(2, s * s, 8),) for s in (4, 5, 6, 7)]", check="recompile-each"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        size = _numpy_size_argument(node, ctx)
        if size is not None:
            ctx.report(node, self.message.format(code=brief(ctx.code_for(node), 24), size=brief(ctx.code_for(size), 24)))
