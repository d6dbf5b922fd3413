"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.classshape import class_shape
from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import function_types, literal_scalar_type
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.attributes import assigned_self_attrs


def _init_type(values: list[cst.BaseExpression], aliases: dict[str, str]) -> str | None:
    types = set()
    for v in values:
        lit = literal_scalar_type(v)
        if lit is not None:
            types.add(lit)
        elif type(v) is cst.Name and v.value == "__registered__":
            types.add("Tensor")
        elif type(v) is cst.Call and (qualify(v.func, aliases) or "") in (
                "torch.nn.Parameter", "torch.zeros", "torch.ones", "torch.empty", "torch.tensor", "torch.full",
                "torch.randn", "torch.arange"):
            types.add("Tensor")
        else:
            return None
    return types.pop() if len(types) == 1 else None


class AttributeTypeChanged(Rule):
    code = "TS159"
    name = "attribute-type-changed"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`self.{attr}` is {old} after `__init__`; `{method}` stores {new}'
    doc = RuleDoc(
        what=("Flags assignments in compiled methods that store a value of another type into an attribute "
              "`__init__` created as an int, float, bool, str or Tensor."),
        why=("A scripted module's attribute types are fixed from the instance after `__init__`; `self.scale = "
             "x.shape[0] * 0.5` into an attribute initialised `0` fails with `Wrong type for attribute assignment. "
             "Expected int but got float`."),
        example="self.momentum = 0  # __init__\n...\nself.momentum = 0.9 * self.momentum + 0.1",
        use_instead="self.momentum = 0.0  # __init__\n...\nself.momentum = 0.9 * self.momentum + 0.1",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.running_scale = 1
    def forward(self, x):
        self.running_scale = 0.9 * self.running_scale + 0.1 * x.shape[0]  # <-
        return x * self.running_scale
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = 0
    def forward(self, x):
        self.seen = x.sum()  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.running_scale = 1.0
        self.calls = 0
    def forward(self, x):
        self.running_scale = 0.9 * self.running_scale + 0.1 * x.shape[0]
        self.calls += 1
        return x * self.running_scale
'''),
    )

    def _check(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        fn, cls = ctx.function, ctx.class_node
        if fn is None or cls is None or fn.name.value == "__init__" or type(node) not in (cst.Assign, cst.AugAssign):
            return
        shape = class_shape(cls, ctx.facts.aliases)
        types = function_types(fn)
        for target in assigned_self_attrs(node):
            attr = target.attr.value
            if attr in shape.class_level or attr not in shape.init_values:
                continue
            old = _init_type(shape.init_values[attr], ctx.facts.aliases)
            if old is None:
                continue
            if type(node) is cst.AugAssign:
                if old == "int" and types.scalar_type(node.value, ctx.facts) == "float":
                    new = "float"
                else:
                    continue
            else:
                new = types.scalar_type(node.value, ctx.facts)
                if new is None and ctx.facts.kind(node.value) is Kind.TENSOR and type(node.value) is not cst.Name:
                    new = "Tensor"
                if new is None and type(node.value) is cst.BinaryOperation and old == "int":
                    # `0.9 * self.x + ...`: a float literal anywhere in arithmetic makes it a float
                    if _has_float_literal(node.value):
                        new = "float"
            if new is None or new == old:
                continue
            fix = {"Tensor": "a tensor buffer via `register_buffer`", "float": "a float literal such as `0.0`"}.get(new, f"a {new}")
            ctx.report(target, self.message.format(attr=attr, old=f"`{old}`", new=f"`{new}`",
                                                   method=fn.name.value, fix=fix))

    visit_Assign = visit_AugAssign = _check


def _has_float_literal(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.Float:
        return True
    if type(expr) is cst.BinaryOperation:
        if type(expr.operator) is cst.Divide:
            return True
        return _has_float_literal(expr.left) or _has_float_literal(expr.right)
    return False
