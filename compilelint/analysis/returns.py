"""What the tree's functions return, read before the files are analysed: a call into another file is then known
to give a tensor (`mask = scatter(...)`, `edge_index, value = to_edge_index(adj)`) as a call in the same file is.

Each file is analysed alone in a worker, so what another file's function returns must be known before: the
engine scans every file's top-level `def name(...) -> Annotation:` (a regular expression and a bracket count, no
parse: a few percent of a lint run) and its package `__init__.py` re-exports (`from .sparse import
to_edge_index`, Python's `ast`), and hands the workers a table of qualified name -> "tensor" (`-> Tensor`) or
"tensors" (`-> Tuple[Tensor, Optional[Tensor]]`, `-> List[Tensor]`). Only annotations count: what a function
body returns is the worker's own business (tensors.infer_returns_tensor, in its file).

The same scan reads the annotated fields of every top-level class (a NamedTuple's, a dataclass's, a plain class's
`data: Dict[str, Tensor]`): "module.Class#field" -> "tensor", "tensors", "map" (a mapping of str to tensors,
maybe None) or "map|" (such a mapping in a Union with other types: only `.get(...)` and string keys pick it), so
`param.data.get("batch_prob")` of a `param: ParamItem` whose class another file defines is known to be a tensor.
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


_CLASS = re.compile(r"^class[ \t]+(\w+)[^\n]*:[ \t]*(?:#.*)?$", re.M)
_FIELD = re.compile(r"(?P<indent>[ \t]+)(?P<name>\w+)[ \t]*:[ \t]*(?P<annotation>[^=#\n]+?)[ \t]*(?:=[^\n]*)?(?:#[^\n]*)?")
_MAPPINGS = ("Dict", "dict", "Mapping", "MutableMapping", "typing.Dict", "typing.Mapping", "typing.MutableMapping")


def _split_top(text: str, sep: str) -> list[str]:
    """`text` split at each `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _members(text: str) -> list[str]:
    """The types a field's annotation admits: Optional/Union/`|` opened, None left out."""
    text = text.strip().strip("'\"")
    for head in ("Optional[", "typing.Optional[", "Union[", "typing.Union["):
        if text.startswith(head) and text.endswith("]"):
            return [m for part in _split_top(text[len(head):-1], ",") for m in _members(part)]
    if len(bar := _split_top(text, "|")) > 1:
        return [m for part in bar for m in _members(part)]
    return [] if text == "None" else [text]


def field_kind(text: str) -> str:
    """"tensor", "tensors", "map", "map|" or "" for a class field's annotation as written."""
    members = _members(re.sub(r"\s+", "", text))
    if not members:
        return ""
    kinds = [annotation_kind(m) or ("map" if _tensor_mapping(m) else "") for m in members]
    if len(set(kinds)) == 1:
        return kinds[0]
    return "map|" if kinds.count("map") == 1 else ""


def _tensor_mapping(text: str) -> bool:
    head, bracket, rest = text.partition("[")
    if not bracket or head not in _MAPPINGS or not rest.endswith("]"):
        return False
    parts = _split_top(rest[:-1], ",")
    return len(parts) == 2 and annotation_kind(parts[1]) == "tensor"


def file_fields(source: str) -> dict[str, str]:
    """"Class#field" -> field_kind of each annotated field in the body of a top-level class (lines at the body's
    indentation outside strings; methods and their signatures sit deeper)."""
    out: dict[str, str] = {}
    lines = source.split("\n")
    starts, line_no, offset = [], 0, 0
    for m in _CLASS.finditer(source):
        line_no += source.count("\n", offset, m.start())
        offset = m.start()
        starts.append((line_no, m.group(1)))
    for first, cls in starts:
        indent, quote = None, ""
        for i in range(first + 1, len(lines)):
            line = lines[i]
            stripped = line.strip()
            if not stripped or (stripped.startswith("#") and not quote):
                continue
            if not quote and not line[:1].isspace():
                break  # the class ended
            at = len(line) - len(line.lstrip())
            if indent is None:
                indent = at
            if quote:
                if line.count(quote) % 2:
                    quote = ""
                continue
            opened = next((q for q in ('"""', "'''") if line.count(q) % 2), "")
            if opened:
                quote = opened
                continue
            if at != indent or "Tensor" not in line:
                continue
            match = _FIELD.fullmatch(line)
            if match and match.group("name") not in ("self", "cls"):
                kind = field_kind(match.group("annotation"))
                if kind:
                    out[f"{cls}#{match.group('name')}"] = kind
    return out


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


_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]+)", re.M)
MAX_IMPORTED = 200  # files read for their classes' fields beyond those given, per run


def imported_class_modules(source: str, module: str, is_package: bool) -> set[str]:
    """The modules a file imports a capitalised name (a class) from: `from .params import ParamItem` ->
    "pkg.container.params"."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for match in _FROM.finditer(source):
        dots, base, names = match.groups()
        if not any(n.strip()[:1].isupper() for n in names.strip("()").split(",")):
            continue
        if dots:
            parent = package
            for _ in range(len(dots) - 1):
                parent = parent.rpartition(".")[0]
            base = ".".join(p for p in (parent, base) if p)
        if base:
            out.add(base)
    return out


def tree_returns(sources: list[tuple[str, bool, str]],
                 fields_only: list[tuple[str, bool, str]] = ()) -> dict[str, str]:
    """(module, is_package, source text) of every file -> qualified function name -> "tensor"/"tensors", and
    "module.Class#field" -> field_kind, also under the names package __init__ files re-export them as.
    `fields_only`: files the given ones import classes from, not themselves given: their fields only."""
    table: dict[str, str] = {}
    aliases: dict[str, str] = {}
    for module, is_package, source in fields_only:
        if "class" in source and "Tensor" in source:
            for name, kind in file_fields(source).items():
                table[f"{module}.{name}"] = kind
        if is_package and "import" in source:
            aliases.update(reexports(source, module, is_package))
    for module, is_package, source in sources:
        if "->" in source:
            for name, kind in file_returns(source).items():
                table[f"{module}.{name}"] = kind
        if "class" in source and "Tensor" in source:
            for name, kind in file_fields(source).items():
                table[f"{module}.{name}"] = kind
        if is_package and "import" in source:
            aliases.update(reexports(source, module, is_package))
    by_target: dict[str, list[str]] = {}
    for alias, target in aliases.items():
        by_target.setdefault(target, []).append(alias)
    for _ in range(4):  # chains of re-exports (pkg -> pkg.utils -> pkg.utils.sparse)
        added = {alias: table[target] for alias, target in aliases.items() if target in table and alias not in table}
        for name, kind in list(table.items()):  # a class's fields, under the names its class is re-exported as
            owner, hash_, attr = name.partition("#")
            for alias in (by_target.get(owner, ()) if hash_ else ()):
                if f"{alias}#{attr}" not in table:
                    added[f"{alias}#{attr}"] = kind
        if not added:
            break
        table.update(added)
    return table


def digest(table: dict[str, str]) -> str:
    return hashlib.sha256(repr(sorted(table.items())).encode()).hexdigest()[:16]
