"""TS169: a module attribute that `__init__`, run with its defaults, leaves unset or None, used in compiled code."""
from __future__ import annotations

import dataclasses
import json

import libcst as cst

from compilelint.analysis.nodes import iter_nodes
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.script_types import (build_passes, default_attribute_states, deciding_parameters,
                                               folded_by_script)


def _self_attr(expr: cst.BaseExpression) -> str | None:
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        return expr.attr.value
    return None


def _tests_attr(function: cst.FunctionDef, attr: str) -> bool:
    """`hasattr(self, "attr")` or `self.attr is (not) None` anywhere in the function: TorchScript decides those
    when it compiles, and skips the branch that needs the attribute."""
    for node in iter_nodes(function.body):
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "hasattr" \
                and len(node.args) == 2 and type(node.args[1].value) is cst.SimpleString \
                and node.args[1].value.evaluated_value == attr:
            return True
        if type(node) is cst.Comparison and any(type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons) \
                and any(_self_attr(o) == attr for o in [node.left, *(c.comparator for c in node.comparisons)]):
            return True
    return False


class AttributeAbsentByDefault(Rule):
    code = "TS169"
    name = "attribute-absent-by-default"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    tree_facts = True  # the tree's builds of the class decide whether the defaults' state is ever built
    message = '`self.{attr}` is {state} by default: {error}'
    doc = RuleDoc(
        what=("Flags, in compiled methods, `self.x` where `__init__` run with its parameters' defaults never sets "
              "`x`, and `self.x(...)` or `self.x == \"literal\"` where it sets `x = None`, unless the method tests "
              "`self.x is None` or `hasattr(self, 'x')`, or every build of the class in the tree passes a "
              "parameter of `__init__` that decides `x` (`Upsample1D(ch, use_conv=True)`)."),
        why=(("TorchScript types a module's attributes from the instance and compiles both sides of an `if` on a "
              "plain flag (`if self.use_norm:`): with the default configuration it fails with `Module 'M' has no "
              "attribute 'gamma'`, or `cannot call a value of type 'NoneType'`. A test of the attribute itself (`if"
              ' self.norm is not None:`) is decided when compiling, so the branch is dropped. Set the attribute to '
              '`None` in every branch of `__init__` and test `self.x is not None` where the flag was tested.')),
        example=("def __init__(self, use_norm=False):\n    if use_norm:\n        self.norm = nn.LayerNorm(8)\n"
                 "    else:\n        self.norm = None\n    self.use_norm = use_norm\n\n"
                 "def forward(self, x):\n    if self.use_norm:\n        x = self.norm(x)\n    return x"),
        use_instead="def forward(self, x):\n    if self.norm is not None:\n        x = self.norm(x)\n    return x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, use_norm=False):
        super().__init__()
        self.use_norm = use_norm
        if use_norm:
            self.norm = torch.nn.LayerNorm(3)
        else:
            self.norm = None
    def forward(self, x):
        if self.use_norm:
            x = self.norm(x)  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, gated=False):
        super().__init__()
        self.gated = gated
        if self.gated:
            self.gamma = torch.nn.Parameter(torch.ones(3))
    def forward(self, x):
        if self.gated:
            x = x * self.gamma  # <-
        return x
'''),
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def __init__(self, norm_type: Optional[str] = None):
        super().__init__()
        self.norm_type = norm_type
    def forward(self, x):
        if self.norm_type == "rms":  # <-
            x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self, use_norm=False, gated=False):
        super().__init__()
        if use_norm:
            self.norm = torch.nn.LayerNorm(3)
        else:
            self.norm = None
        if gated:
            self.gamma = torch.nn.Parameter(torch.ones(3))
    def forward(self, x):
        if self.norm is not None:
            x = self.norm(x)
        if hasattr(self, "gamma"):
            x = x * self.gamma
        return x
''', check="script-call"),
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def __init__(self, dropout: Optional[float] = None, learn_eps=False):
        super().__init__()
        self.dropout_prob = dropout
        if dropout is not None:
            self.dropout = torch.nn.Dropout(dropout)
        if learn_eps:
            self.eps = torch.nn.Parameter(torch.ones(1))
        else:
            self.register_buffer("eps", torch.ones(1))
    def forward(self, x):
        if self.dropout_prob is not None:
            x = self.dropout(x)
        return x + self.eps
''', check="script-call"),
        Example('''
import torch
class Upsample(torch.nn.Module):
    def __init__(self, channels: int, use_conv: bool = False):
        super().__init__()
        self.use_conv = use_conv
        self.conv = None
        if use_conv:
            self.conv = torch.nn.Conv1d(channels, channels, 3, padding=1)
    def forward(self, x):
        x = torch.nn.functional.interpolate(x, scale_factor=2.0)
        if self.use_conv:
            x = self.conv(x)
        return x
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = Upsample(3, use_conv=True)
    def forward(self, x):
        return self.up(x)
''', inputs="[(torch.randn(1, 3, 4),)]", check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._reported: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        attr = _self_attr(node)
        fn = ctx.function
        if attr is None or fn is None or ctx.class_node is None or fn.name.value == "__init__" \
                or attr in self._reported:
            return
        state = default_attribute_states(ctx).get(attr)
        if state not in ("missing", "none"):
            return
        parent = ctx.ancestors[-1] if ctx.ancestors else None
        if type(parent) in (cst.AssignTarget, cst.AugAssign) and getattr(parent, "target", None) is node:
            return  # assigning it is another rule's (TS150, TS151)
        called = type(parent) is cst.Call and parent.func is node
        compared = type(parent) is cst.Comparison and len(parent.comparisons) == 1 and \
            type(parent.comparisons[0].operator) in (cst.Equal, cst.NotEqual) and \
            type(parent.comparisons[0].comparator if parent.left is node else parent.left) in (
                cst.SimpleString, cst.Integer, cst.Float)
        if state == "none" and not (called or compared):
            return  # passing None along is fine; calling it, or comparing it with a str or a number, is not
        if _tests_attr(fn, attr) or folded_by_script(list(ctx.ancestors), node, default_attribute_states(ctx)):
            return
        self._reported.add(attr)
        if state == "missing":
            text = self.message.format(attr=brief(attr, 24), state="never set", error="the scripted module lacks it")
        elif called:
            text = self.message.format(attr=brief(attr, 24), state="None", error="calling it fails to script")
        else:
            text = self.message.format(attr=brief(attr, 24), state="None", error="`==` has no NoneType variant")
        deciding = deciding_parameters(attr, ctx)
        ctx.report(node, text, pending=json.dumps([ctx.class_node.name.value, deciding]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Drop the claim where the tree builds the class, and every build passes a parameter that decides the
        attribute (the defaults' state is then never built); keep it where nothing in the tree builds it."""
        if not finding.pending:
            return finding
        class_name, encoded = json.loads(finding.pending)
        deciding = [tuple(p) for p in encoded]
        summary = index.summary_at(finding.path)
        builds = index.builds_of(f"{summary.module}:{class_name}") if summary is not None and deciding else []
        if builds and all(build_passes(build, deciding) for build in builds):
            return None
        # a copy: the engine settles the same finding again after placing other files' findings (the one it
        # keeps still holds its pending data)
        return dataclasses.replace(finding, pending="")
