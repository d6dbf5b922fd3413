"""TS176: `torch.div(..., rounding_mode=...)`, `torch.floor_divide` or `torch.true_divide` of a Python number."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.calls import argument, call_name
from compilelint.semantic.script_types import is_number
from compilelint.torchapi.script import NUMBER_FIRST_DIVISIONS


class DivisionOfNumbers(Rule):
    code = "TS176"
    name = "division-of-numbers-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    call_gate = gate(names=set(NUMBER_FIRST_DIVISIONS))
    message = "TorchScript has no `{name}` of a number here; use `{instead}`"
    doc = RuleDoc(
        what=("Flags `torch.div(a, b, rounding_mode=...)`, `torch.floor_divide(a, b)` and `torch.true_divide(a, b)` "
              "in compiled code where `a` is a Python number (an int or float parameter, a size such as "
              "`x.shape[0]`, `t.item()`), not a tensor."),
        why=("Eager PyTorch wraps a number into a tensor, but every TorchScript schema of these takes a `Tensor` "
             "first (`aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)`), so scripting fails "
             "with `Arguments for call are not valid ... Expected a value of type 'Tensor' for argument 'self' but "
             "instead found type 'int'`. `torch.div(a, b)` of two numbers without `rounding_mode` does script "
             "(`aten::div.int`, a float), as does `a / b`."),
        example="def forward(self, x):\n    half = torch.div(x.shape[-1], 2, rounding_mode=\"floor\")\n    return x[..., :half]",
        use_instead="def forward(self, x):\n    half = x.shape[-1] // 2\n    return x[..., :half]",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        half = torch.div(x.shape[-1], 2, rounding_mode="floor")  # <-
        return x[..., :half]
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, n: int = 4):
        return x * torch.floor_divide(n, 2)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * torch.true_divide(x.size(0), 3)  # <-
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, n: int = 4):
        half = x.shape[-1] // 2
        third = torch.div(x.size(0), 3)
        y = torch.div(x, n, rounding_mode="floor") * third + torch.floor_divide(x, n)
        return y[..., :half]
''', inputs="[(torch.randn(2, 4),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = call_name(node, ctx)
        if name not in NUMBER_FIRST_DIVISIONS:
            return
        keyword = NUMBER_FIRST_DIVISIONS[name]
        if keyword is not None and not any(a.keyword is not None and a.keyword.value == keyword for a in node.args):
            return
        first = argument(node, 0, "input")
        if first is None or not is_number(first, ctx):
            return
        short = name.rpartition(".")[2]
        mode = argument(node, 99, keyword) if keyword is not None else None
        trunc = type(mode) is cst.SimpleString and mode.evaluated_value == "trunc"
        instead = "int(a / b)" if trunc else "a / b" if short == "true_divide" else "a // b"
        ctx.report(node, self.message.format(name=f"torch.{short}", instead=instead))
