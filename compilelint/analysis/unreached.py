"""Function bodies and module-level tables no compile path can reach, found from the files' text before anything
is parsed.

The walk of the analysis is most of a lint run, and most of a model library is code no compiler runs: timm's model
factories, checkpoint filters, `forward_intermediates` and `default_cfgs` tables. The engine hands each worker the
top-level functions, methods and module-level assignments of its file that this module finds unreached; the worker
leaves them out of the nodes it builds from Python's tree (analysis/ast_cst.py: a `pass` in place of each, every
other line in its place, their class builds still recorded), and reads the facts Python's tree gives from the whole
file.

The finding is by name, over every file of the tree at once. A region is kept when its name is written in code that
is kept: module-level code and class bodies (imports left out: the code that uses a name names it), and the bodies
kept for what they are: `forward` and `__call__`, `__init__` and other dunders and bodies that store on `self`
(their stores are the class's attribute facts; of these only what they store names anything), and text that writes
a word of `KEPT_NAMES` (where a compile path may begin). Text that writes a word of a selected anywhere-rule's
`Rule.body_gate` is kept too (such a rule may report there) but names nothing. How a word names (its file and what
that file imports, or anywhere after a dot) is in `unreached`. The kept set grows until it names nothing new. Scope
follows calls, references and values written in code it reaches, so a function that no kept code names is one it
cannot reach; the engine checks that after the analysis (a left-out function that scope reaches gets its file
analysed again whole), so a wrong guess costs time, never a finding.

The scan is of lines: `def`/`class` headers, indentation and open brackets, with strings and comments masked.
A file it misreads only keeps more (a block that ends early leaves the rest of its lines to module-level code), and
the worker leaves out only what Python's tree confirms is such a function or assignment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Words whose presence keeps a function's body, besides each selected anywhere-rule's `body_gate`: where a compile
# path begins (`torch.compile(fn)`, `torch.jit.script`, `torch.jit.trace`, `torch.export.export`, their
# decorators, `torch._dynamo.optimize`), a property (TorchScript compiles every property of a module), and
# `global`/`nonlocal` statements (module-level facts a function changes).
KEPT_NAMES = frozenset({"compile", "script", "script_method", "trace", "trace_module", "export", "optimize",
                        "property", "global", "nonlocal", "setattr", "delattr", "__dict__"})

_WORD = re.compile(r"[A-Za-z_]\w*")
# A word that names something: not the target of `word = ...` or a keyword argument `f(word=...)` (a binding)
_NAME = re.compile(r"([A-Za-z_]\w*)\b(?!\s*=(?!=))")
_NOT_NEWLINE = re.compile(r"[^\n]")
# A comment; a triple-quoted string (across lines); a one-line string.
_STRINGS = re.compile(r"#[^\n]*"
                      r"|(?P<long>'''|\"\"\")(?:\\.|[^\\])*?(?P=long)"
                      r"|(?P<short>['\"])(?:\\.|[^\\\n])*?(?P=short)", re.S)
# Where scope begins in a class of the tree (a module's forward; a callable object's __call__): kept, and all it
# writes names something.
_ENTRIES = frozenset({"forward", "__call__"})
_SELF_CALL = re.compile(r"[ \t]*self(?:\.\w+)+\s*\(")
_IMPORT = re.compile(r"(?:import|from)[ \t]")
_RENAMED = re.compile(r"([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)")
_ATTRIBUTE = re.compile(r"\.\s*([A-Za-z_]\w*)")
_CHAIN = re.compile(r"\b([A-Za-z_]\w*)((?:\s*\.\s*[A-Za-z_]\w*)+)")
# `name = ...` or `name: T = ...` at the start of a line: a module-level assignment when no block is open
_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)")
# Assignments shorter than this stay: their parse costs little, and most are the constants code reads.
_MIN_ASSIGNMENT_LINES = 3
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
class Region:
    """A top-level function, a method of a top-level class, or a module-level assignment (`default_cfgs = {...}`), as
    the line scan found it: what the worker may blank."""

    key: str  # "name", "Class.name", or "=name" for an assignment
    name: str
    words: frozenset[str]  # what its decorators, signature and body write (its class's header too, for a method)
    names: frozenset[str]  # of those, what it names when kept (bindings left out): all, or for one kept for its
    # facts, what its stores write
    attributes: frozenset[str]  # of those, the ones written after a dot (`self.name`, `x.name`)
    kept_for_itself: bool  # forward, a dunder, or text that stores on self
    # the words after a dot in a chain that begins with an imported name (`vit.checkpoint_filter_fn`): they name the
    # functions of another module
    qualified: frozenset[str] = frozenset()
    blankable: bool = True  # False: a module-level assignment too short to be worth leaving out

    @property
    def is_method(self) -> bool:
        return "." in self.key


@dataclass
class FileOutline:
    regions: list[Region] = field(default_factory=list)
    module_words: set[str] = field(default_factory=set)  # module-level code and class bodies, imports left out
    import_words: set[str] = field(default_factory=set)  # what its module-level imports write
    renamed: set[tuple[str, str]] = field(default_factory=set)  # (alias, name) of each `import name as alias`
    star_import: bool = False  # `from x import *`: any word may name what another file defines
    module_qualified: set[str] = field(default_factory=set)  # Region.qualified of module-level code
    module_names: set[str] = field(default_factory=set)  # of module_words, those not bound there (`x = ...`)


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


def _end_statement(statement: tuple[str, int], last: int, spans: list, imports: list) -> None:
    key, first = statement
    if key == "import":
        imports.append((first, last))
    else:  # a short one (-2) is never blanked, but names what its value writes only when it is named itself
        spans.append((key, first, last + 1, -1 if last - first >= _MIN_ASSIGNMENT_LINES - 1 else -2))


def outline(text: str) -> FileOutline:
    """The functions, methods and module-level assignments of a file, and the words of the rest of its code."""
    lines = _masked(text).split("\n")
    out = FileOutline()
    open_blocks: list[tuple[int, str, str, int]] = []  # (indent, "def"/"class", key or class name, first line)
    spans: list[tuple[str, int, int, int]] = []  # (key, first line, end line exclusive, class header line or -1)
    class_line: dict[str, int] = {}
    pending_decorator = -1
    n = len(lines)

    def close(upto: int, indent: int) -> None:
        while open_blocks and open_blocks[-1][0] >= indent:
            _, kind, key, first = open_blocks.pop()
            if kind == "def" and key:
                spans.append((key, first, upto, class_line.get(key.partition(".")[0], -1) if "." in key else -1))

    depth = 0  # open brackets: a line inside them (a signature's closing `) -> T:`) continues a statement
    continuation = [False] * n
    continued = False  # the line before ended in a backslash
    statement: tuple[str, int] | None = None  # a module-level assignment or import being read: (key, first line)
    imports: list[tuple[int, int]] = []
    last_code = -1
    for i in range(n):
        line = lines[i]
        stripped = line.lstrip(" \t")
        inside_statement = depth > 0 or continued
        continuation[i] = inside_statement
        if stripped:
            depth = max(0, depth + line.count("(") + line.count("[") + line.count("{")
                        - line.count(")") - line.count("]") - line.count("}"))
            continued = line.rstrip().endswith("\\")
        if not stripped or inside_statement:
            last_code = i if stripped else last_code
            continue
        if statement is not None:
            _end_statement(statement, last_code, spans, imports)
            statement = None
        last_code = i
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
                key = name
            elif len(open_blocks) == 1 and open_blocks[0][1] == "class" and kind == "def":
                key = f"{open_blocks[0][2]}.{name}"
            else:
                key = ""  # nested: part of the enclosing function, or of a nested class's body
            if kind == "class" and not open_blocks:
                class_line[name] = i
            open_blocks.append((indent, kind, key if kind == "def" else name, first))
        elif indent == 0 and (target := _ASSIGNMENT.match(line)) is not None and ";" not in line:
            statement = (f"={target.group(1)}", i)
        elif not open_blocks and _IMPORT.match(stripped):
            statement = ("import", i)
        pending_decorator = -1
    if statement is not None:
        _end_statement(statement, last_code, spans, imports)
    close(n, -1)
    spans.sort(key=lambda span: span[1])
    inside = [False] * n
    for first, last in imports:  # an import names nothing by itself: the code that uses the name does
        statement_text = " ".join(lines[first:last + 1])
        out.import_words.update(_WORD.findall(statement_text))
        out.renamed.update((alias, name) for name, alias in _RENAMED.findall(statement_text))
        out.star_import = out.star_import or "*" in statement_text
        for j in range(first, last + 1):
            inside[j] = True
    def qualified(text: str) -> frozenset[str]:
        return frozenset(word for head, rest in _CHAIN.findall(text) if head in out.import_words
                         for word in _ATTRIBUTE.findall(rest))

    for key, first, end, header in spans:
        body = "\n".join(lines[first:end])
        if header == -2:
            for j in range(first, end):
                inside[j] = True
            out.regions.append(Region(key, key[1:], frozenset(_WORD.findall(body)), frozenset(_NAME.findall(body)),
                                      frozenset(_ATTRIBUTE.findall(body)), False, qualified(body),
                                      blankable=False))
            continue
        if header >= 0:
            body += "\n" + lines[header]
        for j in range(first, end):
            inside[j] = True
        name = key.rpartition(".")[2].lstrip("=")
        words = frozenset(_WORD.findall(body))
        if name in _ENTRIES:
            out.regions.append(Region(key, name, words, frozenset(_NAME.findall(body)),
                                      frozenset(_ATTRIBUTE.findall(body)), True,
                                      qualified(body)))
            continue
        if key.startswith("=") or not (name.startswith("__") and name.endswith("__") or _SELF_STORE.search(body)):
            out.regions.append(Region(key, name, words, frozenset(_NAME.findall(body)),
                                      frozenset(_ATTRIBUTE.findall(body)), False,
                                      qualified(body)))
            continue
        # Kept for its facts (`__init__`, a method storing on self): scope reads what its stores hold (`self.head =
        # create_head(...)`, through locals: `block = make_block(); self.blocks.append(block)`), not what it runs, so
        # a call of a method on self that stores nothing (`self.apply(self._init_weights)`, `self.init_weights()`)
        # names nothing.
        held: list[int] = []
        skipping = False
        for j in range(first, end):
            if continuation[j] and j > first:
                if not skipping:
                    held.append(j)
                continue
            skipping = _SELF_CALL.match(lines[j]) is not None and _SELF_STORE.search(lines[j]) is None
            if not skipping:
                held.append(j)
        stores = "\n".join(lines[j] for j in held)
        out.regions.append(Region(key, name, words, frozenset(_NAME.findall(stores)),
                                  frozenset(_ATTRIBUTE.findall(stores)), True, qualified(stores)))
    module_code = "\n".join(lines[j] for j in range(n) if not inside[j])
    out.module_words = set(_WORD.findall(module_code))
    out.module_names = set(_NAME.findall(module_code))
    out.module_qualified = set(qualified(module_code))
    return out


def unreached(outlines: dict[str, FileOutline], gate: frozenset[str]) -> dict[str, frozenset[str]]:
    """Path -> the keys of its regions that no kept code names. A word written after a dot (or in a class body) names
    the methods of that name of every file; after a dot in a chain that begins with an imported name
    (`vit.checkpoint_filter_fn`), the functions and assignments of that name of every file; any word names the
    functions and assignments of that name of its own file, and of every file where its file imports the word (or
    imports `*`). `gate`: words whose presence keeps a region (`KEPT_NAMES` and the selected
    rules' `Rule.body_gate`); a file whose module-level code writes one is left whole (an import may have renamed
    what the word stands for). A region kept only for a rule's gate names nothing (what a compiler runs is what
    kept code names)."""
    whole = {path for path, o in outlines.items() if (o.module_words | o.import_words) & gate}
    renamed: dict[str, set[str]] = {}
    for o in outlines.values():
        for alias, name in o.renamed:
            renamed.setdefault(alias, set()).add(name)
    methods: dict[str, list[Region]] = {}
    functions: dict[str, list[Region]] = {}  # functions and assignments, by name
    local: dict[tuple[str, str], list[Region]] = {}  # the same, by (path, name)
    kept: set[int] = set()
    frontier: list[tuple[str, Region]] = []
    silent: set[int] = set()  # kept for what a rule reads there, not because a compiler may run it: names nothing
    for path, o in outlines.items():
        for region in o.regions:
            if path in whole or region.kept_for_itself or region.words & KEPT_NAMES:
                frontier.append((path, region))
                continue
            if region.words & gate:
                kept.add(id(region))
                silent.add(id(region))
            if region.is_method:
                methods.setdefault(region.name, []).append(region)
            else:
                functions.setdefault(region.name, []).append(region)
                local.setdefault((path, region.name), []).append(region)
    paths = {id(region): path for path, o in outlines.items() for region in o.regions}
    seen_local: set[tuple[str, str]] = set()
    seen_anywhere: set[str] = set()

    def methods_named(words: set[str] | frozenset[str]) -> None:
        for word in words:
            frontier.extend((paths[id(r)], r) for r in methods.pop(word, ()))
            for name in renamed.get(word, ()):  # the name an import gave another name
                frontier.extend((paths[id(r)], r) for r in methods.pop(name, ()))

    def anywhere(words: set[str] | frozenset[str]) -> None:
        for word in words:
            if word in seen_anywhere:
                continue
            seen_anywhere.add(word)
            frontier.extend((paths[id(r)], r) for r in functions.get(word, ()))
            for name in renamed.get(word, ()):
                anywhere((name,))

    def in_file(path: str, words: set[str] | frozenset[str]) -> None:
        o = outlines[path]
        for word in words:
            if (path, word) in seen_local:
                continue
            seen_local.add((path, word))
            frontier.extend((path, r) for r in local.get((path, word), ()))
            if word in o.import_words or o.star_import:
                frontier.extend((paths[id(r)], r) for r in functions.get(word, ()))
            for name in renamed.get(word, ()):
                if word in o.import_words:
                    frontier.extend((paths[id(r)], r) for r in functions.get(name, ()))
                    anywhere((name,))

    for path, o in outlines.items():  # module-level code and class bodies
        in_file(path, o.module_names)
        methods_named(o.module_words)
        anywhere(o.module_qualified)
    while frontier:
        path, region = frontier.pop()
        if id(region) in kept and id(region) not in silent:
            continue
        kept.add(id(region))
        silent.discard(id(region))
        in_file(path, region.names)
        methods_named(region.attributes)
        anywhere(region.qualified)
    out: dict[str, frozenset[str]] = {}
    for path, o in outlines.items():
        if path in whole:
            continue
        blank = {r.key for r in o.regions if id(r) not in kept and r.blankable}
        # a name defined twice (branches of an `if`) is blanked only where every definition is unreached
        blank -= {r.key for r in o.regions if id(r) in kept}
        if blank:
            out[path] = frozenset(blank)
    return out
