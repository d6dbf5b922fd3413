"""Types as `torch.jit.script` sees them: what an annotation means to TorchScript, what a module attribute
holds when `__init__` sets it, and where TorchScript refines a value's type (torch 2.13)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.nodes import child_nodes
from compilelint.analysis.pytypes import walk
from compilelint.analysis.script_support import dead_when_scripting, mentions_is_scripting

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

_TUPLE_NAMES = {"typing.Tuple", "tuple", "builtins.tuple"}


def isinstance_tested(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function` tests `isinstance(name, ...)`: TorchScript refines the local (an `Any` included) to
    that type inside the branch, so its uses there are typed."""
    for node, _ in walk(function.body, (function,)):
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "isinstance" \
                and node.args and type(node.args[0].value) is cst.Name and node.args[0].value.value == name:
            return True
    return False


def is_tuple_annotation(annotation: cst.BaseExpression | None, aliases: dict[str, str]) -> bool:
    """`Tuple[...]` / `tuple[...]`: a value of fixed length, which TorchScript can unroll a loop over."""
    if annotation is None:
        return False
    if type(annotation) is cst.Subscript:
        annotation = annotation.value
    return (qualify(annotation, aliases) or "") in _TUPLE_NAMES


def _init_of(class_node: cst.ClassDef | None) -> cst.FunctionDef | None:
    if class_node is None or type(class_node.body) is not cst.IndentedBlock:
        return None
    return next((s for s in class_node.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"), None)


def tuple_attributes(ctx: "RuleContext") -> set[str]:
    """`self.<attr>`s that `__init__` sets only to a tuple: a tuple literal, or one of its parameters annotated
    `Tuple[...]`. TorchScript stores such an attribute as a tuple constant of known length (once per class)."""
    cache = ctx.__dict__.setdefault("_tuple_attrs", {})
    key = id(ctx.class_node)
    if key in cache:
        return cache[key]
    init = _init_of(ctx.class_node)
    found: dict[str, bool] = {}
    if init is not None:
        aliases = ctx.facts.aliases
        tuple_params = {p.name.value for p in [*init.params.params, *init.params.kwonly_params]
                        if p.annotation is not None and is_tuple_annotation(p.annotation.annotation, aliases)}
        for node, _ in walk(init.body, (init,)):
            if type(node) is not cst.Assign:
                continue
            for target in node.targets:
                t = target.target
                if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                    value = node.value
                    is_tuple = type(value) is cst.Tuple or (type(value) is cst.Name and value.value in tuple_params)
                    found[t.attr.value] = found.get(t.attr.value, True) and is_tuple
    cache[key] = {name for name, ok in found.items() if ok}
    return cache[key]


def has_static_length(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A tuple TorchScript knows the length of: a tuple literal or a tuple attribute (`tuple_attributes`)."""
    if type(expr) is cst.Tuple:
        return True
    return (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and expr.attr.value in tuple_attributes(ctx))


def ancestors_of(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from `root` down to `target` (both included), or None when `target` is not under `root`."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in child_nodes(node):
            stack.append((child, [*path, child]))
    return None


def compiled_by_script(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """False where `node` sits in a branch TorchScript skips (`if not torch.jit.is_scripting():`)."""
    if not mentions_is_scripting(function):
        return True
    path = ancestors_of(function, node)
    return path is None or not dead_when_scripting(path, function)
