"""TS165: a torch call whose argument has a type its TorchScript schema does not take."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import argument, call_name
from compilelint.semantic.script_types import scalar_type, unrefined_optional_param
from compilelint.torchapi.script import FLOAT_ONLY_ARGUMENTS, TENSOR_LIST_FUNCTIONS


class CallArgumentType(Rule):
    code = "TS165"
    name = "call-argument-type-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    call_gate = gate(names=set(FLOAT_ONLY_ARGUMENTS) | set(TENSOR_LIST_FUNCTIONS))
    message = '{why}'
    doc = RuleDoc(
        what=("Flags torch calls TorchScript rejects for an argument's type: an int `scale_factor` to "
              "`F.interpolate`, an `Optional[Tensor]` parameter never checked for None in the list given to "
              "`torch.cat`/`torch.stack`."),
        why=("TorchScript matches each call against the op's schema and converts no int to a float parameter: "
             "`F.interpolate(x, scale_factor=2)` fails with `Expected a value of type 'Optional[List[float]]' for "
             "argument 'scale_factor' but instead found type 'int'`; `torch.cat([x, t])` with `t: Optional[Tensor]` "
             "with `... found type 'List[Optional[Tensor]]'`."),
        example="def forward(self, x):\n    return F.interpolate(x, scale_factor=2, mode=\"nearest\")",
        use_instead="def forward(self, x):\n    return F.interpolate(x, scale_factor=2.0, mode=\"nearest\")",
    )
    bad = (
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="nearest")  # <-
''', inputs="[(torch.randn(1, 2, 4, 4),)]"),
        Example('''
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factor = 2
    def forward(self, x):
        return F.interpolate(x, scale_factor=self.factor)  # <-
''', inputs="[(torch.randn(1, 2, 4, 4),)]"),
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, t: Optional[torch.Tensor] = None):
        return torch.cat([x, t], dim=1)  # <-
'''),
    )
    good = (
        Example('''
import torch
import torch.nn.functional as F
from typing import Optional
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.factor = 2.0
    def forward(self, x, t: Optional[torch.Tensor] = None):
        x = F.interpolate(x, scale_factor=2.0, mode="nearest")
        x = F.interpolate(x, scale_factor=self.factor)
        if t is not None:
            x = torch.cat([x, t], dim=1)
        return x
''', inputs="[(torch.randn(1, 2, 4, 4),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        name = call_name(node, ctx)
        if name in FLOAT_ONLY_ARGUMENTS:
            keyword, position = FLOAT_ONLY_ARGUMENTS[name]
            value = argument(node, position, keyword)
            if value is not None and scalar_type(value, ctx) == "int":
                ctx.report(value, self.message.format(
                    why=f"`{keyword}` takes a float, not an int, when scripted; write `{keyword}=2.0`"))
        elif name in TENSOR_LIST_FUNCTIONS:
            tensors = argument(node, 0, "tensors")
            if type(tensors) in (cst.List, cst.Tuple):
                for element in tensors.elements:
                    if type(element) is cst.Element and unrefined_optional_param(element.value, ctx):
                        ctx.report(node, self.message.format(
                            why=f"`{brief(ctx.code_for(element.value), 24)}` is Optional in a `List[Tensor]`; "
                                "test `is not None` first"))
                        return
