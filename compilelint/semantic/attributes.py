"""What a class's functions do to its `self.<attr>`s: which ones a function shrinks or rebinds, which ones
`__init__` builds as a seeded torch.Generator or as a dict."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.torchapi.dynamo import TORCH_GENERATOR

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext


_SHRINKING = {"pop", "popleft", "clear", "remove"}


def self_attrs_kept_bounded(ctx: "RuleContext") -> set[str]:
    """`self.<attr>`s the current function shrinks or replaces (`.pop()`, `.popleft()`, `.clear()`, `.remove()`,
    `del self.<attr>[...]`, `self.<attr> = ...`): a list it also appends to stops growing (RC511). Once per
    function."""
    cache = ctx.__dict__.setdefault("_bounded_attrs", {})
    fn = ctx.function
    if fn is None:
        return set()
    key = id(fn)
    if key not in cache:
        found: set[str] = set()

        class _Scan(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                func = node.func
                if type(func) is cst.Attribute and func.attr.value in _SHRINKING and _self_attr_name(func.value):
                    found.add(_self_attr_name(func.value))

            def visit_Del(self, node: cst.Del) -> None:
                target = node.target.value if type(node.target) is cst.Subscript else node.target
                if _self_attr_name(target):
                    found.add(_self_attr_name(target))

            def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
                if _self_attr_name(node.target):
                    found.add(_self_attr_name(node.target))

        fn.body.visit(_Scan())
        cache[key] = found
    return cache[key]


def _self_attr_name(expr: cst.BaseExpression) -> str:
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        return expr.attr.value
    return ""


def seeded_generator_attrs(ctx: "RuleContext") -> set[str]:
    """Attributes `__init__` sets to `torch.Generator(...).manual_seed(...)` (once per class)."""
    cache = ctx.__dict__.setdefault("_generator_attrs", {})
    key = id(ctx.class_node)
    if key not in cache:
        found = set()
        init = next((s for s in ctx.class_node.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"),
                    None)
        lines = [s for s in init.body.body if type(s) is cst.SimpleStatementLine] if init is not None else []
        for node in (small for line in lines for small in line.body):
            if type(node) is cst.Assign and type(node.value) is cst.Call:
                func = node.value.func
                if (type(func) is cst.Attribute and func.attr.value == "manual_seed" and type(func.value) is cst.Call
                        and ctx.qualify(func.value.func) == TORCH_GENERATOR):
                    found |= {t.target.attr.value for t in node.targets if type(t.target) is cst.Attribute
                              and type(t.target.value) is cst.Name and t.target.value.value == "self"}
        cache[key] = found
    return cache[key]


_DICT_CALLS = {"dict", "collections.OrderedDict", "collections.defaultdict", "OrderedDict", "defaultdict"}


def dict_attribute(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """The attribute name when `expr` is `self.<attr>` and `__init__` sets that attribute to a dict."""
    if not (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"):
        return None
    facts = ctx.class_facts
    attr = expr.attr.value
    if facts is None:
        return None
    if facts.literal_types.get(attr) == "dict" or facts.attr_calls.get(attr) in _DICT_CALLS:
        return attr
    return None


def assigned_self_attrs(node: cst.CSTNode) -> list[cst.Attribute]:
    """`self.x` targets of an Assign / AugAssign / AnnAssign statement."""
    targets: list[cst.BaseExpression] = []
    if type(node) is cst.Assign:
        for t in node.targets:
            targets.extend(e.value for e in t.target.elements) if type(t.target) is cst.Tuple else targets.append(t.target)
    elif type(node) in (cst.AugAssign, cst.AnnAssign):
        targets.append(node.target)
    return [t for t in targets if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self"]
