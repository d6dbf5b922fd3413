"""TS174: an int passed to a `float` parameter of a function of the file, which TorchScript does not convert."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.script_types import (
    attribute_built_with_int, module_function, parameter_for, scalar_type,
)


class IntToFloatParameter(Rule):
    code = "TS174"
    name = "int-passed-to-float-parameter"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'int `{arg}` passed to float parameter `{param}` of `{callee}`'
    doc = RuleDoc(
        what=("Flags calls of a function of the same file whose `float` parameter receives an int: an int literal, "
              "an int-annotated parameter, or an attribute the file's constructor calls build with an int literal."),
        why=("Python accepts an int for a float; TorchScript matches each argument against the compiled function's "
             "schema and fails: `Expected a value of type 'float' for argument 'shift' but instead found type "
             "'int'`. A module attribute has the type of the value the module was built with, whatever its "
             "`__init__` annotation says (`Timesteps(..., downscale_freq_shift=1)`)."),
        example=("def embed(t, shift: float = 1.0):\n    return t - shift\n\nclass M(nn.Module):\n"
                 "    def forward(self, t):\n        return embed(t, shift=1)"),
        use_instead=("def embed(t, shift: float = 1.0):\n    return t - shift\n\nclass M(nn.Module):\n"
                     "    def forward(self, t):\n        return embed(t, shift=1.0)"),
    )
    bad = (
        Example('''
import torch
def embed(t: torch.Tensor, shift: float = 1.0) -> torch.Tensor:
    return t - shift
class M(torch.nn.Module):
    def forward(self, t):
        return embed(t, shift=1)  # <-
'''),
        Example('''
import torch
def embed(t: torch.Tensor, shift: float = 1.0) -> torch.Tensor:
    return t - shift
class Steps(torch.nn.Module):
    def __init__(self, shift: float):
        super().__init__()
        self.shift = shift
    def forward(self, t):
        return embed(t, self.shift)  # <-
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = Steps(shift=1)
    def forward(self, t):
        return self.steps(t)
'''),
    )
    good = (
        Example('''
import torch
def embed(t: torch.Tensor, shift: float = 1.0) -> torch.Tensor:
    return t - shift
class Steps(torch.nn.Module):
    def __init__(self, shift: float):
        super().__init__()
        self.shift = shift
    def forward(self, t):
        return embed(t, self.shift) + embed(t, shift=1.0)
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = Steps(shift=1.0)
    def forward(self, t):
        return self.steps(t)
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if type(node.func) is not cst.Name or ctx.function is None or node.func.value in ctx.facts.env:
            return
        callee = module_function(node.func.value, ctx)
        if callee is None:
            return
        for arg in node.args:
            param = parameter_for(node, callee, arg, method=False)
            if param is None or param.annotation is None:
                continue
            annotation = param.annotation.annotation
            if not (type(annotation) is cst.Name and annotation.value == "float"):
                continue
            value = arg.value
            why = "here" if scalar_type(value, ctx) == "int" else None
            if why is None and type(value) is cst.Attribute and type(value.value) is cst.Name \
                    and value.value.value == "self" and ctx.class_node is not None:
                built = attribute_built_with_int(value.attr.value, ctx)
                if built is not None:
                    why = f"(`__init__` takes `{built}`)" if built.endswith(": int") else \
                        f"where the module is built by `{built}`"
                else:
                    why = None
            if why is not None:
                ctx.report(node, self.message.format(arg=ctx.code_for(value), why=why, param=param.name.value,
                                                     callee=node.func.value))
                return
