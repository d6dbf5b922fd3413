"""Function bodies no compile path can reach, found from the files' text before anything is parsed.

LibCST's parse and the walk after it are most of a lint run, and most of a model library is code no compiler
runs: timm's model factories, checkpoint filters and `forward_intermediates`. The engine hands each worker the
top-level functions and methods of its file that this module finds unreached; the worker gives LibCST the file
with their bodies blanked (`blank_bodies`: a `pass` and empty lines, so that every other line keeps its place),
and Python's own tree of the whole file for the facts read from it.

The finding is by name, over every file of the tree at once. A function is kept when its name is written in
code that is kept: module-level code, class bodies, and the bodies kept for what they are (`KEPT_NAMES`,
`forward`, dunders such as `__init__`, whose stores are the class's attribute facts; text that stores on
`self`, says `global` or `nonlocal`, or writes a word of `gate_words`: where a compile path may begin or a rule
that reports anywhere may report). The kept set grows until it names nothing new. Scope follows calls,
references and values written in code it reaches, so a function that no kept code names is one it cannot reach;
the engine checks that after the analysis (a blanked function that scope reaches, or a blanked file's function
a finding's facts read, gets its file analysed again unblanked), so a wrong guess costs time, never a finding.

The scan is of lines: `def`/`class` headers and indentation, with triple-quoted strings masked so that their
lines cannot end a block. A file it misreads only keeps more (a block that ends early leaves the rest of its
lines to module-level code), and the worker blanks only what Python's tree confirms is such a function.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

# Words whose presence keeps a function's body, besides each selected rule's own (`gate_words`): where a compile
# path begins (`torch.compile(fn)`, `torch.jit.script`, `torch.jit.trace`, `torch.export.export`, their
# decorators, `torch._dynamo.optimize`), a property (TorchScript compiles every property of a module), and
# `global`/`nonlocal` statements (module-level facts a function changes).
KEPT_NAMES = frozenset({"compile", "script", "script_method", "trace", "trace_module", "export", "optimize",
                        "property", "global", "nonlocal", "setattr", "delattr", "__dict__"})

_WORD = re.compile(r"[A-Za-z_]\w*")
_NOT_NEWLINE = re.compile(r"[^\n]")
# A comment; a triple-quoted string (across lines); a one-line string.
_STRINGS = re.compile(r"#[^\n]*"
                      r"|(?P<long>'''|\"\"\")(?:\\.|[^\\])*?(?P=long)"
                      r"|(?P<short>['\"])(?:\\.|[^\\\n])*?(?P=short)", re.S)
_HEADER = re.compile(r"([ \t]*)(?:(@)|(?:async[ \t]+)?(def|class)[ \t]+(\w+))")
# Stores on `self` (an attribute fact of the class, or state a rule reads): `self.x = ...`, `self.x[i] += ...`,
# `self.a, self.b = ...`, `del self.x`, containers grown or shrunk in place, in-place tensor methods, and the
# registration methods of nn.Module.
_SELF_STORE = re.compile(
    r"\bself\.\w+(?:\[[^\]\n]*\])?\s*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)"
    r"|\bself\.\w+\s*,[^\n=]*=(?!=)"
    r"|\bdel\s+self\b"
    r"|\bself\.\w+\.(?:append|appendleft|extend|insert|pop|popleft|popitem|clear|remove|add|discard|update|setdefault"
    r"|\w+_)\s*\("
    r"|\bself\.(?:register_buffer|register_parameter|add_module|register_module)\s*\(")


@dataclass
class Function:
    """A top-level function or a method of a top-level class, as the line scan found it."""

    local: str  # "name" or "Class.name"
    name: str
    words: frozenset[str]  # what its decorators, signature and body write (its class's header too, for a method)
    kept_for_itself: bool  # forward, a dunder, or text that stores on self


@dataclass
class FileOutline:
    functions: list[Function] = field(default_factory=list)
    module_words: set[str] = field(default_factory=set)  # module-level code and class bodies


def _masked(text: str) -> str:
    """`text` with every comment and the inside of every string blanked (newlines and quotes kept), so that no line
    of a string is read as code and no word in one as a name: scope never follows a name a string holds."""
    def blank(match: re.Match) -> str:
        piece = match.group()
        if piece[0] == "#":
            return ""
        quote = 3 if match.group("long") else 1
        return piece[:quote] + _NOT_NEWLINE.sub(" ", piece[quote:-quote]) + piece[-quote:]
    return _STRINGS.sub(blank, text)


def outline(text: str) -> FileOutline:
    """The functions of a file and the words of its module-level code, from its lines."""
    lines = _masked(text).split("\n")
    out = FileOutline()
    # open blocks: (indent, kind, local name, first line, class header words for a method's gate)
    open_blocks: list[tuple[int, str, str, int]] = []
    regions: list[tuple[str, str, int, int, int]] = []  # (local, name, first line, end line, class line)
    class_line: dict[str, int] = {}
    pending_decorator = -1
    module_lines: list[str] = []
    n = len(lines)

    def close(upto: int, indent: int) -> None:
        while open_blocks and open_blocks[-1][0] >= indent:
            block_indent, kind, local, first = open_blocks.pop()
            if kind == "def" and local:
                regions.append((local, local.rpartition(".")[2], first, upto, class_line.get(local.partition(".")[0], -1)
                                if "." in local else -1))

    depth = 0  # open brackets: a line inside them (a signature's closing `) -> T:`) continues a statement
    continued = False  # the line before ended in a backslash
    for i in range(n):
        line = lines[i]
        stripped = line.lstrip(" \t")
        inside_statement = depth > 0 or continued
        if stripped:
            depth = max(0, depth + sum(map(line.count, "([{")) - sum(map(line.count, ")]}")))
            continued = line.rstrip().endswith("\\")
        if not stripped or inside_statement:
            continue
        indent = len(line) - len(stripped)
        if open_blocks and indent <= open_blocks[-1][0]:
            close(i, indent)
        match = _HEADER.match(line)
        if match is not None and match.group(2):
            if pending_decorator < 0:
                pending_decorator = i
            continue
        if match is not None and match.group(3):
            kind, name = match.group(3), match.group(4)
            first = pending_decorator if pending_decorator >= 0 else i
            if not open_blocks:
                local = name
            elif len(open_blocks) == 1 and open_blocks[0][1] == "class" and kind == "def":
                local = f"{open_blocks[0][2]}.{name}"
            else:
                local = ""  # nested: part of the enclosing function, or of a nested class's body
            if kind == "class" and not open_blocks:
                class_line[name] = i
            open_blocks.append((indent, kind, local if kind == "def" else name, first))
        pending_decorator = -1
    close(n, -1)
    regions.sort(key=lambda r: r[2])
    inside = [False] * n
    for local, name, first, end, header in regions:
        body = "\n".join(lines[first:end])
        if header >= 0:
            body += "\n" + lines[header]
        words = frozenset(_WORD.findall(body))
        for j in range(first, end):
            inside[j] = True
        itself = name == "forward" or (name.startswith("__") and name.endswith("__")) or \
            _SELF_STORE.search(body) is not None
        out.functions.append(Function(local, name, words, itself))
    module_lines = [lines[j] for j in range(n) if not inside[j]]
    out.module_words = set(_WORD.findall("\n".join(module_lines)))
    return out


def unreached(outlines: dict[str, FileOutline], gate: frozenset[str]) -> dict[str, frozenset[str]]:
    """Path -> the locals ("f", "Cls.m") of its functions that no kept code names. `gate`: words whose presence keeps
    a body (`KEPT_NAMES` and the selected rules' `gate_words`); a file whose module-level code writes one is left
    whole (an import may have renamed the thing the word stands for)."""
    whole = {path for path, o in outlines.items() if o.module_words & gate}
    named: set[str] = set()
    for o in outlines.values():
        named |= o.module_words
    waiting: dict[str, list[Function]] = {}
    kept: set[int] = set()
    frontier: list[Function] = []
    for path, o in outlines.items():
        for fn in o.functions:
            if path in whole or fn.kept_for_itself or fn.words & gate:
                frontier.append(fn)
            else:
                waiting.setdefault(fn.name, []).append(fn)
    seen_names: set[str] = set()
    while True:
        for fn in frontier:
            if id(fn) not in kept:
                kept.add(id(fn))
                named |= fn.words
        frontier = []
        for name in named - seen_names:
            frontier.extend(waiting.pop(name, ()))
        seen_names |= named
        if not frontier:
            break
    out: dict[str, frozenset[str]] = {}
    for path, o in outlines.items():
        if path in whole:
            continue
        blank = {fn.local for fn in o.functions if id(fn) not in kept}
        # a name defined twice (branches of an `if`) is blanked only where every definition is unreached
        blank -= {fn.local for fn in o.functions if id(fn) in kept}
        if blank:
            out[path] = frozenset(blank)
    return out


def blank_bodies(source: bytes, tree: ast.Module, locals_: frozenset[str]) -> tuple[bytes, list[tuple[str, int, int]]]:
    """`source` with the bodies of the named top-level functions and methods of top-level classes (also those
    under a top-level `if`/`try`, as the analyzer reads them) replaced by `pass` and empty lines: every line keeps
    its number, every other byte its place. Returns the new source and (local, first, last line) of each body
    blanked. A body that shares a line with its signature (`def f(): return 1`) stays."""
    spans: list[tuple[str, int, int, int]] = []  # (local, first line, last line, indent bytes)

    def visit(stmts: list[ast.stmt], owner: str | None) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                local = f"{owner}.{stmt.name}" if owner else stmt.name
                if local in locals_ and stmt.body and stmt.end_lineno:
                    spans.append((local, stmt.body[0].lineno, stmt.end_lineno, stmt.body[0].col_offset))
            elif isinstance(stmt, ast.ClassDef) and owner is None:
                visit(stmt.body, stmt.name)
            elif isinstance(stmt, (ast.If, ast.Try)) and owner is None:
                visit([*stmt.body, *stmt.orelse, *getattr(stmt, "finalbody", ()),
                       *(s for h in getattr(stmt, "handlers", ()) for s in h.body)], None)

    visit(tree.body, None)
    if not spans:
        return source, []
    lines = source.splitlines(keepends=True)
    blanked: list[tuple[str, int, int]] = []
    for local, first, last, col in spans:
        head = lines[first - 1] if 0 < first <= len(lines) else b""
        if head[:col].strip(b" \t\f") or last > len(lines):
            continue  # the body begins on its signature's line
        for j in range(first - 1, last):
            text = lines[j]
            ending = text[len(text.rstrip(b"\r\n")):]
            lines[j] = (head[:col] + b"pass" + (ending or b"\n")) if j == first - 1 else ending
        blanked.append((local, first, last))
    return b"".join(lines), blanked
