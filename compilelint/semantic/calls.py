"""What a call calls, and with what: the callee's qualified name (once per call), whether it is one of a set of
functions, an argument by position or keyword, a method of a tensor, and whether `F.one_hot` is left to size its
output by the data."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.torchapi.shapes import ONE_HOT

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext


def call_name(call: cst.Call, ctx: "RuleContext") -> str:
    """The qualified name of a call's callee ("" when it has none), computed once per call node: most rules ask."""
    cache = ctx.__dict__.get("_gb_call_names")
    if cache is None or cache[0] is not ctx.facts:
        cache = ctx.__dict__["_gb_call_names"] = (ctx.facts, {})
    names = cache[1]
    key = id(call)
    name = names.get(key)
    if name is None:
        name = names[key] = ctx.qualify(call.func) or ""
    return name


def called_function(node: cst.CSTNode, ctx: "RuleContext", names) -> str | None:  # noqa: ANN001 - any container
    """The qualified name when `node` calls one of `names` (`print`, `time.time`), not a local of the same name."""
    if type(node) is cst.Call:
        q = call_name(node, ctx) or None
        if q in names and not (type(node.func) is cst.Name and node.func.value in ctx.facts.env):
            return q
    return None


def argument(call: cst.Call, index: int, keyword: str | None = None) -> cst.BaseExpression | None:
    """The argument passed as `keyword=`, else the `index`-th positional one (star arguments not counted), or None."""
    if keyword is not None:
        for a in call.args:
            if a.keyword is not None and a.keyword.value == keyword:
                return a.value
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return positional[index].value if index < len(positional) else None


def tensor_method(call: cst.Call, ctx: "RuleContext", names) -> bool:  # noqa: ANN001 - any container of names
    """`t.<name>(...)` with `t` a tensor and `<name>` one of `names`."""
    return (type(call.func) is cst.Attribute and call.func.attr.value in names
            and ctx.facts.is_tensor(call.func.value))


def one_hot_without_num_classes(call: cst.Call, ctx: "RuleContext") -> bool:
    """`F.one_hot(labels)` with no `num_classes` (or -1, its default): the output is as wide as the largest label,
    a size read from the data (torchapi.shapes.ONE_HOT)."""
    if not call.args or call_name(call, ctx) != ONE_HOT or any(a.star for a in call.args):
        return False
    value = argument(call, 1, "num_classes")
    if value is None:
        return True
    negative = type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus
    inner = value.expression if negative else value
    return negative and type(inner) is cst.Integer and inner.value == "1"


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))
_LIBRARY_HEADS = ("torch.", "math.", "numpy.", "typing.")  # compiled or traced as torch's own, never the tree's


def tree_callee(call: cst.Call, ctx: "RuleContext") -> tuple[str, str] | None:
    """What a call may run of the linted tree: ("self", method) for `self.m(...)`, ("name", qualified) for a
    function reached by name or through an import; None for builtins, torch/math/numpy/typing, methods of local
    values and callees with no name."""
    func = call.func
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
        return "self", func.attr.value
    if type(func) is cst.Name and func.value in _BUILTIN_NAMES:
        return None
    qualified = ctx.qualify(func)
    if qualified is None or qualified.startswith(_LIBRARY_HEADS) or qualified.startswith("self."):
        return None
    head = func
    while type(head) is cst.Attribute:
        head = head.value
    if type(func) is cst.Attribute and not (type(head) is cst.Name and head.value in ctx.facts.aliases):
        return None  # a method of a local value, not a function reached through an import
    return "name", qualified
