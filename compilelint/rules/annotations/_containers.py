"""Shared by TA204/TA205: spelling container annotations with what the file imports."""
from __future__ import annotations


def container_type(aliases: dict[str, str], outer: str, inner: str) -> str:
    """`List[int]` if `List` is imported from typing, else `list[int]` (TorchScript accepts both)."""
    def spell(name: str) -> str:
        local = next((k for k, v in aliases.items() if v == f"typing.{name}"), None)
        return local or name.lower()

    inner = inner.replace("Tuple[", spell("Tuple") + "[")
    return f"{spell(outer)}[{inner}]"
