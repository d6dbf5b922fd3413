"""What the tree's functions return, read before the files are analysed: a call into another file is then known
to give a tensor (`mask = scatter(...)`, `edge_index, value = to_edge_index(adj)`) as a call in the same file is.

Each file is analysed alone in a worker, so what another file's function returns must be known before: the
engine scans every file's top-level `def name(...) -> Annotation:` (a regular expression and a bracket count, no
parse: a few percent of a lint run) and its package `__init__.py` re-exports (`from .sparse import
to_edge_index`, Python's `ast`), and hands the workers a table of qualified name -> "tensor" (`-> Tensor`) or
"tensors" (`-> Tuple[Tensor, Optional[Tensor]]`, `-> List[Tensor]`). Only annotations count: what a function
body returns is the worker's own business (tensors.infer_returns_tensor, in its file).
"""

from __future__ import annotations

import ast
import hashlib
import re

_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.M)
_TENSOR = r"(?:torch\.)?Tensor"
_ELEMENT = rf"(?:{_TENSOR}|(?:typing\.)?Optional\[{_TENSOR}\]|{_TENSOR}\|None)"
_TENSORS = re.compile(rf"(?:typing\.)?(?:Tuple|tuple|List|list)\[{_ELEMENT}(?:,{_ELEMENT})*(?:,\.\.\.)?,?\]")
_MAX_SIGNATURE = 4000  # characters from `def` to the colon: past that, the function is left out


def annotation_kind(text: str) -> str:
    """"tensor", "tensors" or "" for a return annotation as written."""
    text = re.sub(r"\s+", "", text).strip("'\"")
    if re.fullmatch(_TENSOR, text):
        return "tensor"
    return "tensors" if _TENSORS.fullmatch(text) else ""


def file_returns(source: str) -> dict[str, str]:
    """Top-level function name -> "tensor"/"tensors", from its return annotation (overloads that disagree:
    left out)."""
    out: dict[str, str] = {}
    dropped: set[str] = set()
    for match in _DEF.finditer(source):
        name = match.group(1)
        end = _signature_end(source, match.end())
        if end is None:
            continue
        rest = source[end:end + 400]
        arrow = re.match(r"[ \t\\\n]*->(.*?):[ \t]*(?:#.*)?$", rest, re.M | re.S)
        kind = annotation_kind(arrow.group(1)) if arrow else ""
        if name in out and out[name] != kind:
            dropped.add(name)
        out[name] = kind
    return {name: kind for name, kind in out.items() if kind and name not in dropped}


def _signature_end(source: str, start: int) -> int | None:
    """The index just past the `)` that closes the parameter list opened before `start`."""
    depth = 1
    i = start
    limit = min(len(source), start + _MAX_SIGNATURE)
    while i < limit:
        ch = source[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        elif ch in "'\"":
            close = source.find(ch, i + 1)
            if close < 0:
                return None
            i = close
        elif ch == "#":
            newline = source.find("\n", i)
            i = newline if newline >= 0 else limit
        i += 1
    return None


def reexports(source: str, module: str, is_package: bool) -> dict[str, str]:
    """`from .x import f` in a package's __init__.py: "pkg.f" -> "pkg.x.f"."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {}
    out: dict[str, str] = {}
    package = module if is_package else module.rpartition(".")[0]
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        base = node.module or ""
        if node.level:
            parent = package
            for _ in range(node.level - 1):
                parent = parent.rpartition(".")[0]
            base = ".".join(p for p in (parent, base) if p)
        for alias in node.names:
            if alias.name != "*":
                out[f"{module}.{alias.asname or alias.name}"] = f"{base}.{alias.name}"
    return out


def tree_returns(sources: list[tuple[str, bool, str]]) -> dict[str, str]:
    """(module, is_package, source text) of every file -> qualified function name -> "tensor"/"tensors", also
    under the names package __init__ files re-export it as."""
    table: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for module, is_package, source in sources:
        if "->" in source:
            for name, kind in file_returns(source).items():
                table[f"{module}.{name}"] = kind
        if is_package and "import" in source:
            aliases.update(reexports(source, module, is_package))
    for _ in range(4):  # chains of re-exports (pkg -> pkg.utils -> pkg.utils.sparse)
        added = {alias: table[target] for alias, target in aliases.items() if target in table and alias not in table}
        if not added:
            break
        table.update(added)
    return table


def digest(table: dict[str, str]) -> str:
    return hashlib.sha256(repr(sorted(table.items())).encode()).hexdigest()[:16]
