from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import call_name
from compilelint.semantic.frames import number_argument, reaches_entry_values
from compilelint.torchapi.shapes import SPECIALISED_METHOD_PARAMS, SPECIALISED_PARAMS


def _specialised_argument(call: cst.Call, ctx) -> tuple[str, str] | None:  # noqa: ANN001
    """(parameter, op parameter) when a number argument of the frame's entry (number_argument) is passed
    directly as an op parameter that Dynamo specialises (SPECIALISED_PARAMS)."""
    if not reaches_entry_values(ctx):
        return None
    func = call.func
    params = SPECIALISED_PARAMS.get(call_name(call, ctx))
    if params is None and type(func) is cst.Attribute and ctx.facts.kind(func.value) is Kind.TENSOR:
        params = SPECIALISED_METHOD_PARAMS.get(func.attr.value)
    if params is None:
        return None
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    for pos, keyword in params:
        arg = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)
        if arg is None and pos < len(positional):
            arg = positional[pos].value
        name = number_argument(arg, ctx) if arg is not None else None
        if name:
            return name, keyword
    return None


class ArgumentSpecialisedByOp(Rule):
    code = "RC515"
    name = "argument-specialised-by-op"
    call_gate = gate(names=set(SPECIALISED_PARAMS), methods=set(SPECIALISED_METHOD_PARAMS))
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`{param}` passed as `{what}` is specialised: each value recompiles'
    version_note = ("Verified on 2.13 (its examples also on 2.11) with five values of an int/float argument (four recompiles each): "
                    "torch.linspace/logspace `steps`, F.interpolate `scale_factor`, F.avg_pool1d/max_pool1d "
                    "`kernel_size` and `stride`, F.max_pool2d `kernel_size`, F.adaptive_avg_pool1d `output_size`, "
                    "torch.split / Tensor.chunk sizes, Tensor.unfold `size`/`step`. Stayed dynamic (one "
                    "recompile, not flagged): F.interpolate `size`, a conv `stride`, topk's k, torch.roll, slicing, "
                    "repeat_interleave, torch.arange with a float step, torch.full's value.")
    doc = RuleDoc(
        what=("Flags, in a module's `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, an `int`/`float` parameter passed "
              "directly as an op parameter that Dynamo specialises: `torch.linspace(..., steps)`, "
              "`F.interpolate(scale_factor=)`, pooling `kernel_size`/`stride`/`output_size`, `torch.split` / "
              "`chunk` sizes, `Tensor.unfold` size and step."),
        why=("Planners build a time grid for the horizon the caller asks for (`torch.linspace(0, T, steps)`), "
             "pyramids pool or resize by a factor passed per call. Most int arguments become dynamic after one "
             "recompile; these op parameters are baked into the graph instead, so each new value compiles again "
             "and, after 8 values, the function runs eagerly."),
        example="def forward(self, x, steps: int):\n    t = torch.linspace(0.0, 1.0, steps)",
        use_instead="def __init__(self, steps: int):\n    self.register_buffer(\"t\", torch.linspace(0.0, 1.0, steps))",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, steps: int = 10):
        t = torch.linspace(0.0, 1.0, steps)  # <-
        return x.sum() * t
''', inputs="[(torch.randn(2, 3), k) for k in (8, 10, 12, 16)]", check="recompile-each"),
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x, scale: float = 2.0):
        return F.interpolate(x, scale_factor=scale)  # <-
''', inputs="[(torch.randn(1, 2, 8, 8), s) for s in (1.5, 2.0, 2.5, 3.0)]", check="recompile-each"),
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x, k: int = 2):
        return F.max_pool2d(x, k)  # <-
''', inputs="[(torch.randn(1, 2, 16, 16), k) for k in (2, 3, 4, 5)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, parts: int = 2):
        return torch.stack([p.sum() for p in x.chunk(parts, dim=-1)])  # <-
''', inputs="[(torch.randn(2, 40), k) for k in (2, 4, 5, 8)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def _grid(self, steps):
        return torch.linspace(0.0, 1.0, steps)  # <-

    def forward(self, x, steps: int):
        return x.sum() * self._grid(steps)
''', inputs="[(torch.randn(3), k) for k in (8, 10, 12, 16)]", check="recompile-each"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, steps: int = 10):
        super().__init__()
        self.register_buffer("t", torch.linspace(0.0, 1.0, steps))
    def forward(self, x, gain: float = 1.0):
        return x.sum() * self.t * gain
''', inputs="[(torch.randn(2, 3), g) for g in (0.5, 1.0, 1.5, 2.0)]", check="recompile-each"),
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x, size: int = 16):
        return F.interpolate(x, size=size)
''', inputs="[(torch.randn(1, 2, 8, 8), n) for n in (12, 16, 20, 24)]", check="recompile-each"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        found = _specialised_argument(node, ctx)
        if found:
            ctx.report(node, self.message.format(code=brief(ctx.code_for(node), 24), param=found[0], what=found[1]))
