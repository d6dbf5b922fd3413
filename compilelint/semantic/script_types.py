"""Types as `torch.jit.script` sees them: what an annotation means to TorchScript, what a module attribute
holds when `__init__` sets it, and where TorchScript refines a value's type (torch 2.13)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.nodes import child_nodes, iter_nodes
from compilelint.analysis.pytypes import is_rebound, literal_scalar_type, refined_names, walk
from compilelint.analysis.script_support import dead_when_scripting, mentions_is_scripting
from compilelint.semantic.annotations import optional_annotation

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


def scalar_type(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """"int", "float", "bool" or "str" where TorchScript types `expr` so for certain: a literal, a parameter of the
    function annotated so, or a `self.<attr>` that `__init__` sets to a literal (TorchScript infers an
    attribute's type from its value)."""
    found = literal_scalar_type(expr)
    if found is not None:
        return found
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        literal = ctx.class_facts.literal_types.get(expr.attr.value) if ctx.class_facts is not None else None
        return literal if literal in ("int", "float", "bool", "str") else None
    if type(expr) is cst.Name and ctx.function is not None and not is_rebound(ctx.function, expr.value):
        params = ctx.function.params
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if p.name.value == expr.value and p.annotation is not None:
                annotation = p.annotation.annotation
                if type(annotation) is cst.Name and annotation.value in ("int", "float", "bool", "str"):
                    return annotation.value
    return None


def unrefined_optional_param(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A parameter annotated `Optional[...]` that the function never tests (`is None`, `isinstance`, a truth
    value, an assert) nor rebinds: TorchScript still types it Optional where it is used."""
    function = ctx.function
    if type(expr) is not cst.Name or function is None:
        return False
    params = function.params
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if p.name.value == expr.value and p.annotation is not None:
            return (optional_annotation(p.annotation.annotation, ctx.facts.aliases)
                    and not assigned(function, expr.value) and expr.value not in refined_names(function))
    return False


def assigned(function: cst.FunctionDef, name: str) -> bool:
    """Whether the body binds `name` (an assignment, augmented or annotated, a loop or `with` target), unpacking
    targets included; a list or tuple that is only read does not count."""
    for node, _ in walk(function.body, (function,)):
        targets: list[cst.CSTNode] = []
        if type(node) is cst.Assign:
            targets = [t.target for t in node.targets]
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor):
            targets = [node.target]
        elif type(node) is cst.AsName:
            targets = [node.name]
        for target in targets:
            if any(type(n) is cst.Name and n.value == name for n in iter_nodes(target)):
                return True
    return False
