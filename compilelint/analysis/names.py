"""Dotted names of expressions, resolved through a file's imports.

`nn.Conv2d` in a file that did `import torch.nn as nn` is `torch.nn.Conv2d`; `F.relu` after
`from torch.nn import functional as F` is `torch.nn.functional.relu`. This is the same answer as
LibCST's QualifiedNameProvider for imported names, without building a full scope graph per file.
"""

from __future__ import annotations

import libcst as cst


def dotted(expr: cst.BaseExpression) -> str | None:
    """`a.b.c` -> "a.b.c"; anything that is not a plain name/attribute chain -> None."""
    parts: list[str] = []
    while type(expr) is cst.Attribute:
        parts.append(expr.attr.value)
        expr = expr.value
    if type(expr) is not cst.Name:
        return None
    parts.append(expr.value)
    return ".".join(reversed(parts))


def import_aliases(node: cst.Import | cst.ImportFrom, module: str, is_package: bool) -> dict[str, str]:
    """Local names bound by one import statement -> the dotted names they stand for."""
    out: dict[str, str] = {}
    if type(node) is cst.Import:
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and type(alias.asname.name) is cst.Name:
                out[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                out[head] = head
        return out
    base = dotted(node.module) if node.module is not None else ""
    if base is None:
        return out
    level = len(node.relative)
    if level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(level - 1):
            package = package.rpartition(".")[0]
        base = ".".join(p for p in (package, base) if p)
    if type(node.names) is cst.ImportStar:
        return out
    for alias in node.names:
        name = dotted(alias.name)
        if name is None:
            continue
        local = alias.asname.name.value if alias.asname is not None and type(alias.asname.name) is cst.Name else name
        out[local] = f"{base}.{name}" if base else name
    return out


def qualify(expr: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """The dotted name of `expr` with its first part replaced by what the imports bound it to."""
    name = dotted(expr)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    target = aliases.get(head)
    if target is None:
        return name
    return f"{target}.{rest}" if rest else target


def without_none(annotation: cst.BaseExpression, aliases: dict[str, str]) -> cst.BaseExpression | None:
    """The one type an annotation admits besides None: `T` of `Optional[T]`, `Union[T, None]` or `T | None`; the
    annotation itself where it admits no None; None where it admits several types besides None."""
    if type(annotation) is cst.Subscript and (qualify(annotation.value, aliases) or "").rsplit(".", 1)[-1] in (
            "Optional", "Union"):
        rest = [e.slice.value for e in annotation.slice if type(e.slice) is cst.Index
                and not (type(e.slice.value) is cst.Name and e.slice.value.value == "None")]
        return rest[0] if len(rest) == 1 else None
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        sides = [s for s in (annotation.left, annotation.right) if not (type(s) is cst.Name and s.value == "None")]
        return sides[0] if len(sides) == 1 else None
    return annotation
