"""What annotations say about a value, as TorchScript reads them."""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify, without_none  # noqa: F401 - the one type an Optional admits
from compilelint.analysis.pytypes import is_none


def optional_annotation(annotation: cst.BaseExpression, aliases: dict[str, str]) -> bool:
    """`Optional[T]`, `Union[T, None]` or `T | None`."""
    if type(annotation) is cst.Subscript:
        outer = (qualify(annotation.value, aliases) or "").rsplit(".", 1)[-1]
        if outer == "Optional":
            return True
        if outer == "Union":
            return any(type(e.slice) is cst.Index and is_none(e.slice.value) for e in annotation.slice)
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        return is_none(annotation.left) or is_none(annotation.right)
    return False
