"""Fast iteration over LibCST nodes.

`CSTNode.children` builds its list by running a visitor over the node, which costs about as much as
the parse over a whole tree when called everywhere; rules and facts use these instead. Whitespace,
parentheses and comma fields are skipped: analysis never needs them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import libcst as cst

_SKIPPED_PREFIXES = ("whitespace", "lpar", "rpar", "leading_lines", "comma", "semicolon", "trailing_whitespace",
                     "header", "footer", "lbracket", "rbracket", "lbrace", "rbrace", "colon", "equal", "star",
                     "dot", "asynchronous", "newline", "indent")
_FIELDS: dict[type, tuple[str, ...]] = {}
# Fields declared to hold text, never a node (`Name.value`): the walks do not look at them
TEXT_TYPES = (str, bool)


def concrete_types(*bases: type) -> frozenset[type]:
    """Every class below `bases` (the bases too) that has no subclass of its own: `type(x) in` this set is
    `isinstance(x, bases)` for LibCST nodes without the cost of ABCMeta's isinstance (LibCST nodes are ABCs)."""
    found: set[type] = set()
    stack = list(bases)
    while stack:
        cls = stack.pop()
        subclasses = cls.__subclasses__()
        if subclasses:
            stack.extend(subclasses)
        else:
            found.add(cls)
    return frozenset(found)


NODE_TYPES = concrete_types(cst.CSTNode)


def child_fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type) if (not f.name.startswith(_SKIPPED_PREFIXES)
                      or f.name in ("star_arg", "star_kwarg", "equal")) and f.type not in TEXT_TYPES)
        _FIELDS[node_type] = names
    return names


def child_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children that carry code (in field order, not necessarily source order)."""
    out: list[cst.CSTNode] = []
    for name in child_fields(type(node)):
        value = getattr(node, name)
        value_type = type(value)
        if value_type in NODE_TYPES:
            out.append(value)
        elif value_type is list or value_type is tuple:
            out.extend(v for v in value if type(v) in NODE_TYPES)
    return out


# Types whose fields are not declared in source order (LibCST visits them in source order)
_SOURCE_ORDER: dict[type, tuple[str, ...]] = {
    cst.IfExp: ("body", "test", "orelse"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.Arg: ("keyword", "value"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
}


def source_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """child_nodes in source order: the order a LibCST visitor meets them, without its cost (a visitor rebuilds
    every node it passes)."""
    fields = _SOURCE_ORDER.get(type(node))
    if fields is None:
        return child_nodes(node)
    out: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        value_type = type(value)
        if value_type in NODE_TYPES:
            out.append(value)
        elif value_type is list or value_type is tuple:
            out.extend(v for v in value if type(v) in NODE_TYPES)
    return out


def iter_nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node below it (pre-order, depth first)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child_nodes(node))


def string_value(node: cst.BaseExpression) -> str | None:
    """The text of a plain string literal, or None: not a `SimpleString`, a bytes literal, or one Python
    cannot evaluate (a NUL byte in the source: `evaluated_value` raises SyntaxError there)."""
    if type(node) is not cst.SimpleString:
        return None
    try:
        value = node.evaluated_value
    except (SyntaxError, ValueError):
        return None
    return value if isinstance(value, str) else None
