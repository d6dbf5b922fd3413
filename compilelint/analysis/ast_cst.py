"""LibCST nodes built from Python's own parse of a file, for the analysis.

The rules read LibCST nodes. LibCST's parser also keeps every space, comment and parenthesis so that a tree can be
printed back byte for byte, which costs about ten times Python's own parse (on timm, about as much as the whole
analysis after it). The analysis reads none of it: this module builds the same nodes (the same classes and the same fields the analysis reads) from
the `ast` tree the analyzer already has, with LibCST's default whitespace, and records where each node is in the
source. What it does not build exactly, it does not build: `Unsupported`, and the file is parsed by LibCST.

What differs from LibCST's own tree, and where that is handled:
- whitespace and comments are LibCST's defaults, so printing a node (`code_for_node`) gives normalised code; the
  source of a node is `Built.code_for` (the text between its recorded places, parentheses in);
- a fix is text generated from nodes: a file whose analysis proposes a fix is parsed by LibCST and analyzed again
  (analyzer.analyze_source);
- f-strings and implicitly concatenated strings are parsed by LibCST from their source text (Python 3.11's tree has
  no positions inside an f-string): their inner nodes have no recorded position, and a finding on one sends the
  file to LibCST too.
"""

from __future__ import annotations

import ast
import dataclasses
import re

import libcst as cst

# A node's place in the source: (line, byte column, end line, end byte column), as Python's tree gives them.
Span = tuple[int, int, int, int]


class Unsupported(Exception):
    """A construct this module does not build (a `match` statement, a coding cookie, ...)."""


_NO_PARENS: list = []  # the empty `lpar`/`rpar` of every node built (never changed: nodes are frozen)


def _maker(cls: type) -> "callable":
    """A constructor for `cls` that skips the dataclass __init__ and validation: the fields given by keyword, the
    others their defaults (shared instances: LibCST nodes are frozen)."""
    names, defaults = [], {}
    for field in dataclasses.fields(cls):
        names.append(field.name)
        if field.default is not dataclasses.MISSING:
            defaults[field.name] = field.default
        elif field.default_factory is not dataclasses.MISSING:
            defaults[field.name] = field.default_factory()
    for name in ("lpar", "rpar"):  # the parser gives lists; `lpar == []` must hold as it does on LibCST's tree
        if name in defaults and defaults[name] == ():
            defaults[name] = _NO_PARENS
    params = ", ".join(f"{n}=_d_{n}" if n in defaults else n for n in names)
    body = "\n".join(f"    _set(o, {n!r}, {n})" for n in names)
    namespace = {"_new": object.__new__, "_set": object.__setattr__, "_cls": cls}
    namespace.update({f"_d_{n}": v for n, v in defaults.items()})
    exec(f"def make({'*, ' if params else ''}{params}):\n    o = _new(_cls)\n{body}\n    return o\n", namespace)  # noqa: S102
    return namespace["make"]


_MAKERS: dict[type, "callable"] = {}


def _make(cls: type):  # noqa: ANN202
    maker = _MAKERS.get(cls)
    if maker is None:
        maker = _MAKERS[cls] = _maker(cls)
    return maker


_BINARY = {ast.Add: cst.Add, ast.Sub: cst.Subtract, ast.Mult: cst.Multiply, ast.MatMult: cst.MatrixMultiply,
           ast.Div: cst.Divide, ast.Mod: cst.Modulo, ast.Pow: cst.Power, ast.LShift: cst.LeftShift,
           ast.RShift: cst.RightShift, ast.BitOr: cst.BitOr, ast.BitXor: cst.BitXor, ast.BitAnd: cst.BitAnd,
           ast.FloorDiv: cst.FloorDivide}
_AUGMENTED = {ast.Add: cst.AddAssign, ast.Sub: cst.SubtractAssign, ast.Mult: cst.MultiplyAssign,
              ast.MatMult: cst.MatrixMultiplyAssign, ast.Div: cst.DivideAssign, ast.Mod: cst.ModuloAssign,
              ast.Pow: cst.PowerAssign, ast.LShift: cst.LeftShiftAssign, ast.RShift: cst.RightShiftAssign,
              ast.BitOr: cst.BitOrAssign, ast.BitXor: cst.BitXorAssign, ast.BitAnd: cst.BitAndAssign,
              ast.FloorDiv: cst.FloorDivideAssign}
_UNARY = {ast.Not: cst.Not, ast.USub: cst.Minus, ast.UAdd: cst.Plus, ast.Invert: cst.BitInvert}
_COMPARE = {ast.Eq: cst.Equal, ast.NotEq: cst.NotEqual, ast.Lt: cst.LessThan, ast.LtE: cst.LessThanEqual,
            ast.Gt: cst.GreaterThan, ast.GtE: cst.GreaterThanEqual, ast.Is: cst.Is, ast.IsNot: cst.IsNot,
            ast.In: cst.In, ast.NotIn: cst.NotIn}
_OPERATORS: dict[type, cst.CSTNode] = {}  # one instance of each operator node (frozen, shared)
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_SPACE = b" \t\r\n\\\x0c"


def _operator(cls: type) -> cst.CSTNode:
    node = _OPERATORS.get(cls)
    if node is None:
        node = _OPERATORS[cls] = cls()
    return node


class _Builder:
    """One file's nodes, built top-down from Python's tree: statements group and nest as LibCST groups them
    (`a = 1; b = 2` is one SimpleStatementLine, `elif` an If in `orelse`), each node's place recorded in `spans`."""

    def __init__(self, source: bytes, blank: frozenset[str]) -> None:
        self.source = source
        starts = [0]
        find = source.find
        at = find(b"\n")
        while at >= 0:
            starts.append(at + 1)
            at = find(b"\n", at + 1)
        self.starts = starts
        self.blank = blank
        self.blanked: list[tuple[str, int, int]] = []  # (key, first line, last line) of what was left out
        self.left_out_calls: list[cst.CSTNode] = []  # the class builds among the calls of what was left out
        self.spans: dict[int, Span] = {}
        self.written: dict[int, tuple[int, int]] = {}  # id(node) -> its source with its parentheses (offsets)

    # -- places ------------------------------------------------------------------------------------
    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: cst.CSTNode, tree: ast.AST) -> None:
        self.spans[id(node)] = (tree.lineno, tree.col_offset, tree.end_lineno, tree.end_col_offset)

    def text(self, tree: ast.AST) -> str:
        return self.source[self.offset(tree.lineno, tree.col_offset):
                           self.offset(tree.end_lineno, tree.end_col_offset)].decode("utf-8")

    def parens(self, tree: ast.AST, reserved: int) -> tuple[int, int, int]:
        """How many pairs of parentheses enclose `tree` itself (`(a + b) * c`), comments between them and it
        skipped, and the offsets of the outermost pair's two ends (the tree's own span where none);
        `reserved`: the offset of an opening parenthesis that belongs to the enclosing syntax (a call's)."""
        src = self.source
        first = self.offset(tree.lineno, tree.col_offset)
        last = self.offset(tree.end_lineno, tree.end_col_offset)
        start, end = first - 1, last
        size = len(src)
        layers = 0
        while True:
            while start >= 0 and src[start] in _SPACE:
                if src[start] == 10:  # a comment on the line before: `(  # why\n    x`
                    line_start = src.rfind(b"\n", 0, start) + 1
                    comment = src.find(b"#", line_start, start)
                    if comment >= 0:
                        start = comment
                start -= 1
            if start < 0 or src[start] != 40 or start == reserved:  # "("
                return layers, first, last
            while end < size and (src[end] in _SPACE or src[end] == 35):
                if src[end] == 35:  # "#": to the end of the line
                    end = src.find(b"\n", end)
                    if end < 0:
                        return layers, first, last
                end += 1
            if end >= size or src[end] != 41:  # ")"
                return layers, first, last
            layers += 1
            first, last = start, end + 1
            start -= 1
            end += 1

    def closing(self, start: int) -> int:
        """The offset of the bracket that closes the one at `start` (strings and comments skipped)."""
        src = self.source
        depth = 0
        i = start
        size = len(src)
        while i < size:
            c = src[i]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                depth -= 1
                if depth == 0:
                    return i
            elif c == 35:  # "#"
                i = src.find(b"\n", i)
                if i < 0:
                    return -1
            elif c in b"'\"":
                i = self._string_end(i)
                continue
            i += 1
        return -1

    def _string_end(self, i: int) -> int:
        src = self.source
        quote = src[i:i + 3] if src[i:i + 3] in (b'"""', b"'''") else src[i:i + 1]
        j = i + len(quote)
        while True:
            k = src.find(quote, j)
            if k < 0:
                return len(src)
            back = k - 1
            while src[back] == 92:  # "\\"
                back -= 1
            if (k - 1 - back) % 2 == 0:
                return k + len(quote)
            j = k + 1

    # -- statements --------------------------------------------------------------------------------
    def module(self, tree: ast.Module) -> cst.Module:
        return _make(cst.Module)(body=self.body(tree.body, ""))

    def body(self, stmts: list[ast.stmt], prefix: str) -> list[cst.CSTNode]:
        out: list[cst.CSTNode] = []
        line: list[cst.CSTNode] = []
        line_end = -1
        first = last = None
        for index, stmt in enumerate(stmts):
            if prefix == "" and self.blank and type(stmt) in (ast.Assign, ast.AnnAssign):
                stmt = self.blanked_assignment(stmt, stmts[index + 1] if index + 1 < len(stmts) else None)
            build = _COMPOUND.get(type(stmt))
            if build is not None:
                if line:
                    out.append(self.simple_line(line, first, last))
                    line = []
                out.append(build(self, stmt, prefix))
                continue
            if line and stmt.lineno == line_end:  # `a = 1; b = 2`
                line.append(self.small(stmt))
            else:
                if line:
                    out.append(self.simple_line(line, first, last))
                line = [self.small(stmt)]
                first = stmt
            last = stmt
            line_end = stmt.end_lineno
        if line:
            out.append(self.simple_line(line, first, last))
        return out

    def blanked_assignment(self, stmt: ast.stmt, after: ast.stmt | None) -> ast.stmt:
        """A module-level assignment of `blank` ("=name") as a `pass` in its place."""
        targets = stmt.targets if type(stmt) is ast.Assign else [stmt.target] if stmt.value is not None else []
        if len(targets) == 1 and type(targets[0]) is ast.Name and f"={targets[0].id}" in self.blank and \
                stmt.col_offset == 0 and (after is None or after.lineno > stmt.end_lineno):
            self.blanked.append((f"={targets[0].id}", stmt.lineno, stmt.end_lineno))
            self.note_builds(stmt.value)
            return ast.Pass(lineno=stmt.lineno, col_offset=0, end_lineno=stmt.lineno, end_col_offset=4)
        return stmt

    def note_builds(self, tree: ast.AST) -> None:
        """The calls under `tree` of a capitalised name (`Net(**kwargs)`, `models.Net(3)`), built as nodes: what is
        left out still builds classes, which facts of the whole tree read (`RepoIndex.builds_of`)."""
        for node in ast.walk(tree):
            if type(node) is ast.Call:
                func = node.func
                last = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else ""
                if last[:1].isupper():
                    self.left_out_calls.append(self.expr(node))

    def simple_line(self, smalls: list[cst.CSTNode], first: ast.stmt, last: ast.stmt) -> cst.CSTNode:
        node = _make(cst.SimpleStatementLine)(body=smalls)
        self.spans[id(node)] = (first.lineno, first.col_offset, last.end_lineno, last.end_col_offset)
        return node

    def suite(self, stmts: list[ast.stmt], prefix: str) -> cst.CSTNode:
        first = stmts[0]
        start = self.starts[first.lineno - 1]
        if self.source[start:start + first.col_offset].strip(b" \t\x0c"):  # `if x: return y`
            smalls = [self.small(s) for s in stmts]
            return _make(cst.SimpleStatementSuite)(body=smalls)
        return _make(cst.IndentedBlock)(body=self.body(stmts, prefix))

    def small(self, stmt: ast.stmt) -> cst.CSTNode:
        build = _SMALL.get(type(stmt))
        if build is None:
            raise Unsupported(type(stmt).__name__)
        node = build(self, stmt)
        self.span(node, stmt)
        return node

    def decorators(self, tree: ast.AST) -> list[cst.CSTNode]:
        out = []
        for expr in tree.decorator_list:
            node = _make(cst.Decorator)(decorator=self.expr(expr))
            self.spans[id(node)] = (expr.lineno, expr.col_offset - 1, expr.end_lineno, expr.end_col_offset)
            out.append(node)
        return out

    def name_after(self, tree: ast.AST, keyword: bytes, name: str) -> cst.Name:
        """The Name of a `def`/`class` statement, placed after its keyword on the statement's line."""
        node = _make(cst.Name)(value=name)
        start = self.offset(tree.lineno, tree.col_offset)
        at = self.source.find(name.encode(), self.source.find(keyword, start) + len(keyword))
        col = at - self.starts[tree.lineno - 1]
        self.spans[id(node)] = (tree.lineno, col, tree.lineno, col + len(name.encode()))
        return node

    def function_def(self, tree: ast.FunctionDef, prefix: str) -> cst.CSTNode:
        local = prefix + tree.name
        first = tree.body[0]
        if local in self.blank and not self.source[self.starts[first.lineno - 1]:
                                                   self.offset(first.lineno, first.col_offset)].strip(b" \t\x0c"):
            self.blanked.append((local, first.lineno, tree.end_lineno))
            for stmt in tree.body:
                self.note_builds(stmt)
            body = _make(cst.IndentedBlock)(body=[_make(cst.SimpleStatementLine)(body=[_make(cst.Pass)()])])
        else:
            body = self.suite(tree.body, "\0")  # nested definitions are never blanked
        node = _make(cst.FunctionDef)(
            name=self.name_after(tree, b"def", tree.name), params=self.parameters(tree.args), body=body,
            decorators=self.decorators(tree),
            returns=self.annotation(tree.returns) if tree.returns is not None else None,
            asynchronous=_make(cst.Asynchronous)() if type(tree) is ast.AsyncFunctionDef else None)
        self.span(node, tree)
        return node

    def class_def(self, tree: ast.ClassDef, prefix: str) -> cst.CSTNode:
        if getattr(tree, "type_params", None):
            raise Unsupported("type parameters")
        name = self.name_after(tree, b"class", tree.name)
        open_at = self.source.find(b"(", self.offset(*self.spans[id(name)][2:]))
        arguments = self.arguments(tree.bases, tree.keywords, open_at)
        node = _make(cst.ClassDef)(
            name=name,
            body=self.suite(tree.body, f"{tree.name}." if prefix == "" else "\0"),
            bases=[a for a in arguments if a.keyword is None and a.star != "**"],
            keywords=[a for a in arguments if a.keyword is not None or a.star == "**"],
            decorators=self.decorators(tree),
            lpar=_make(cst.LeftParen)() if arguments or self._empty_parens(tree) else cst.MaybeSentinel.DEFAULT,
            rpar=_make(cst.RightParen)() if arguments or self._empty_parens(tree) else cst.MaybeSentinel.DEFAULT)
        self.span(node, tree)
        return node

    def _empty_parens(self, tree: ast.ClassDef) -> bool:
        start = self.offset(tree.lineno, tree.col_offset)
        line = self.source[start:self.source.find(b":", start)]
        return b"(" in line

    def if_(self, tree: ast.If, prefix: str) -> cst.CSTNode:
        prefix = prefix if prefix == "" else "\0"  # under a top-level `if`, definitions are the module's
        node = _make(cst.If)(test=self.expr(tree.test), body=self.suite(tree.body, prefix),
                             orelse=self.orelse(tree.orelse, prefix, elif_allowed=True))
        self.span(node, tree)
        return node

    def orelse(self, stmts: list[ast.stmt], prefix: str, elif_allowed: bool = False) -> cst.CSTNode | None:
        if not stmts:
            return None
        first = stmts[0]
        if elif_allowed and len(stmts) == 1 and type(first) is ast.If:
            start = self.offset(first.lineno, first.col_offset)
            if self.source.startswith(b"elif", start):
                return self.if_(first, prefix)
        return _make(cst.Else)(body=self.suite(stmts, prefix))

    def for_(self, tree: ast.For, prefix: str) -> cst.CSTNode:
        prefix = "\0"
        node = _make(cst.For)(target=self.expr(tree.target), iter=self.expr(tree.iter),
                              body=self.suite(tree.body, prefix), orelse=self.orelse(tree.orelse, prefix),
                              asynchronous=_make(cst.Asynchronous)() if type(tree) is ast.AsyncFor else None)
        self.span(node, tree)
        return node

    def while_(self, tree: ast.While, prefix: str) -> cst.CSTNode:
        prefix = "\0"
        node = _make(cst.While)(test=self.expr(tree.test), body=self.suite(tree.body, prefix),
                                orelse=self.orelse(tree.orelse, prefix))
        self.span(node, tree)
        return node

    def with_(self, tree: ast.With, prefix: str) -> cst.CSTNode:
        prefix = "\0"
        items = []
        for item in tree.items:
            asname = None
            if item.optional_vars is not None:
                asname = _make(cst.AsName)(name=self.expr(item.optional_vars))
            items.append(_make(cst.WithItem)(item=self.expr(item.context_expr), asname=asname))
        parenthesized = self._with_parens(tree)
        node = _make(cst.With)(items=items, body=self.suite(tree.body, prefix),
                               asynchronous=_make(cst.Asynchronous)() if type(tree) is ast.AsyncWith else None,
                               lpar=_make(cst.LeftParen)() if parenthesized else cst.MaybeSentinel.DEFAULT,
                               rpar=_make(cst.RightParen)() if parenthesized else cst.MaybeSentinel.DEFAULT)
        self.span(node, tree)
        return node

    def _with_parens(self, tree: ast.With) -> bool:
        """`with (a as b, c as d):`: parentheses around the items, not around the first item's expression."""
        src = self.source
        at = src.find(b"with", self.offset(tree.lineno, tree.col_offset)) + 4
        while src[at] in _SPACE:
            at += 1
        if src[at] != 40:
            return False
        first = tree.items[0].context_expr
        if self.offset(first.lineno, first.col_offset) <= at:  # the item is a tuple or generator: its own
            return False
        close = self.closing(at)
        after = close + 1
        while after < len(src) and src[after] in _SPACE:
            after += 1
        return close > 0 and src[after:after + 1] == b":" and (len(tree.items) > 1 or tree.items[0].optional_vars
                                                                is not None)

    def try_(self, tree: ast.Try, prefix: str) -> cst.CSTNode:
        prefix = prefix if prefix == "" else "\0"
        handlers = []
        for handler in tree.handlers:
            name = None
            if handler.name is not None:
                name = _make(cst.AsName)(name=_make(cst.Name)(value=handler.name))
            built = _make(cst.ExceptHandler)(body=self.suite(handler.body, prefix),
                                             type=self.expr(handler.type) if handler.type is not None else None,
                                             name=name)
            self.span(built, handler)
            handlers.append(built)
        node = _make(cst.Try)(body=self.suite(tree.body, prefix), handlers=handlers,
                              orelse=self.orelse(tree.orelse, prefix),
                              finalbody=_make(cst.Finally)(body=self.suite(tree.finalbody, prefix))
                              if tree.finalbody else None)
        self.span(node, tree)
        return node

    def unsupported(self, tree: ast.stmt, prefix: str) -> cst.CSTNode:
        raise Unsupported(type(tree).__name__)

    # -- small statements --------------------------------------------------------------------------
    def expr_stmt(self, tree: ast.Expr) -> cst.CSTNode:
        return _make(cst.Expr)(value=self.expr(tree.value))

    def assign(self, tree: ast.Assign) -> cst.CSTNode:
        targets = [_make(cst.AssignTarget)(target=self.expr(t)) for t in tree.targets]
        return _make(cst.Assign)(targets=targets, value=self.expr(tree.value))

    def aug_assign(self, tree: ast.AugAssign) -> cst.CSTNode:
        return _make(cst.AugAssign)(target=self.expr(tree.target), operator=_operator(_AUGMENTED[type(tree.op)]),
                                    value=self.expr(tree.value))

    def ann_assign(self, tree: ast.AnnAssign) -> cst.CSTNode:
        return _make(cst.AnnAssign)(target=self.expr(tree.target), annotation=self.annotation(tree.annotation),
                                    value=self.expr(tree.value) if tree.value is not None else None)

    def annotation(self, tree: ast.expr) -> cst.CSTNode:
        return _make(cst.Annotation)(annotation=self.expr(tree))

    def return_(self, tree: ast.Return) -> cst.CSTNode:
        return _make(cst.Return)(value=self.expr(tree.value) if tree.value is not None else None)

    def delete(self, tree: ast.Delete) -> cst.CSTNode:
        if len(tree.targets) == 1:
            target = self.expr(tree.targets[0])
        else:
            target = _make(cst.Tuple)(elements=[_make(cst.Element)(value=self.expr(t)) for t in tree.targets],
                                      lpar=_NO_PARENS, rpar=_NO_PARENS)
        return _make(cst.Del)(target=target)

    def raise_(self, tree: ast.Raise) -> cst.CSTNode:
        cause = _make(cst.From)(item=self.expr(tree.cause)) if tree.cause is not None else None
        return _make(cst.Raise)(exc=self.expr(tree.exc) if tree.exc is not None else None, cause=cause)

    def assert_(self, tree: ast.Assert) -> cst.CSTNode:
        return _make(cst.Assert)(test=self.expr(tree.test), msg=self.expr(tree.msg) if tree.msg is not None else None)

    def dotted(self, name: str) -> cst.CSTNode:
        parts = name.split(".")
        node = _make(cst.Name)(value=parts[0])
        for part in parts[1:]:
            node = _make(cst.Attribute)(value=node, attr=_make(cst.Name)(value=part))
        return node

    def aliases(self, names: list[ast.alias]) -> list[cst.CSTNode]:
        return [_make(cst.ImportAlias)(name=self.dotted(a.name),
                                       asname=_make(cst.AsName)(name=_make(cst.Name)(value=a.asname))
                                       if a.asname is not None else None) for a in names]

    def import_(self, tree: ast.Import) -> cst.CSTNode:
        return _make(cst.Import)(names=self.aliases(tree.names))

    def import_from(self, tree: ast.ImportFrom) -> cst.CSTNode:
        if len(tree.names) == 1 and tree.names[0].name == "*":
            names = _make(cst.ImportStar)()
        else:
            names = self.aliases(tree.names)
        dot = _make(cst.Dot)()
        parenthesized = b"(" in self.source[self.offset(tree.lineno, tree.col_offset):
                                            self.offset(tree.end_lineno, tree.end_col_offset)]
        return _make(cst.ImportFrom)(module=self.dotted(tree.module) if tree.module else None, names=names,
                                     relative=[dot] * tree.level,
                                     lpar=_make(cst.LeftParen)() if parenthesized else None,
                                     rpar=_make(cst.RightParen)() if parenthesized else None)

    def global_(self, tree: ast.Global) -> cst.CSTNode:
        return _make(cst.Global)(names=[_make(cst.NameItem)(name=_make(cst.Name)(value=n)) for n in tree.names])

    def nonlocal_(self, tree: ast.Nonlocal) -> cst.CSTNode:
        return _make(cst.Nonlocal)(names=[_make(cst.NameItem)(name=_make(cst.Name)(value=n)) for n in tree.names])

    def pass_(self, tree: ast.Pass) -> cst.CSTNode:
        return _make(cst.Pass)()

    def break_(self, tree: ast.Break) -> cst.CSTNode:
        return _make(cst.Break)()

    def continue_(self, tree: ast.Continue) -> cst.CSTNode:
        return _make(cst.Continue)()

    # -- expressions -------------------------------------------------------------------------------
    def expr(self, tree: ast.expr, reserved: int = -1) -> cst.CSTNode:
        build = _EXPRESSIONS.get(type(tree))
        node = build(self, tree) if build is not None else self.reparsed(tree)
        own = len(node.lpar)  # a parenthesized tuple's span holds its first pair
        extra, first, last = self.parens(tree, reserved)
        if extra:
            object.__setattr__(node, "lpar", [_make(cst.LeftParen)()] * (own + extra))
            object.__setattr__(node, "rpar", [_make(cst.RightParen)()] * (own + extra))
        if extra or own:
            self.written[id(node)] = (first, last)
        if own or type(tree) is ast.GeneratorExp:  # LibCST's place of a node is inside its parentheses
            start = self.offset(tree.lineno, tree.col_offset)
            end = self.offset(tree.end_lineno, tree.end_col_offset)
            if self.source[start + 1] not in _SPACE and self.source[end - 2] not in _SPACE:  # else: no place
                self.spans[id(node)] = (tree.lineno, tree.col_offset + 1, tree.end_lineno, tree.end_col_offset - 1)
        else:
            self.span(node, tree)
        return node

    def reparsed(self, tree: ast.expr) -> cst.CSTNode:
        """LibCST's own parse of the expression's source (f-strings, implicitly concatenated strings)."""
        text = self.text(tree)
        try:
            node = cst.parse_expression(text if "\n" not in text else f"({text})")
        except Exception as err:  # noqa: BLE001
            raise Unsupported(f"{type(tree).__name__}: {err}") from err
        if "\n" in text:
            node = node.with_changes(lpar=node.lpar[1:], rpar=node.rpar[:-1])
        return node

    def name(self, tree: ast.Name) -> cst.CSTNode:
        return _make(cst.Name)(value=tree.id)

    def constant(self, tree: ast.Constant) -> cst.CSTNode:
        value = tree.value
        kind = type(value)
        if kind is str or kind is bytes:
            text = self.text(tree)
            if not self._single_literal(text):
                return self.reparsed(tree)
            return _make(cst.SimpleString)(value=text)
        if kind is bool or value is None:
            return _make(cst.Name)(value=str(value))
        if kind is int:
            return _make(cst.Integer)(value=self.text(tree))
        if kind is float:
            return _make(cst.Float)(value=self.text(tree))
        if kind is complex:
            return _make(cst.Imaginary)(value=self.text(tree))
        if value is Ellipsis:
            return _make(cst.Ellipsis)()
        raise Unsupported(f"constant {kind.__name__}")

    @staticmethod
    def _single_literal(text: str) -> bool:
        body = text.lstrip("rRbBuU")
        quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
        if not quote or quote not in "\"'\"\"\"'''":
            return False
        at = len(quote)
        while True:
            found = body.find(quote, at)
            if found < 0:
                return False
            backslashes = 0
            while body[found - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                return found + len(quote) == len(body)
            at = found + 1

    def attribute(self, tree: ast.Attribute) -> cst.CSTNode:
        attr = _make(cst.Name)(value=tree.attr)
        width = len(tree.attr.encode())
        self.spans[id(attr)] = (tree.end_lineno, tree.end_col_offset - width, tree.end_lineno, tree.end_col_offset)
        return _make(cst.Attribute)(value=self.expr(tree.value), attr=attr)

    def subscript(self, tree: ast.Subscript) -> cst.CSTNode:
        index = tree.slice
        if type(index) is ast.Tuple and index.elts and not self.parenthesized_tuple(index):
            parts = index.elts
        else:
            parts = [index]
        elements = []
        for part in parts:
            if type(part) is ast.Slice:
                inner = _make(cst.Slice)(lower=self.expr(part.lower) if part.lower is not None else None,
                                         upper=self.expr(part.upper) if part.upper is not None else None,
                                         step=self.expr(part.step) if part.step is not None else None,
                                         second_colon=self._second_colon(part))
            elif type(part) is ast.Starred:
                inner = _make(cst.Index)(value=self.expr(part.value), star="*")
            else:
                inner = _make(cst.Index)(value=self.expr(part))
            element = _make(cst.SubscriptElement)(slice=inner)
            elements.append(element)
        return _make(cst.Subscript)(value=self.expr(tree.value), slice=elements)

    def _second_colon(self, part: ast.Slice) -> object:
        """`x[a::]` has a second colon that `x[a:]` has not (LibCST keeps it)."""
        if part.step is not None:
            return _make(cst.Colon)()
        src = self.source
        at = self.offset(part.lower.end_lineno, part.lower.end_col_offset) if part.lower is not None \
            else self.offset(part.lineno, part.col_offset)
        at = src.find(b":", at) + 1
        if part.upper is not None:
            at = self.offset(part.upper.end_lineno, part.upper.end_col_offset)
        end = self.offset(part.end_lineno, part.end_col_offset)
        return _make(cst.Colon)() if b":" in src[at:end] else cst.MaybeSentinel.DEFAULT

    def parenthesized_tuple(self, tree: ast.Tuple) -> bool:
        start = self.offset(tree.lineno, tree.col_offset)
        end = self.offset(tree.end_lineno, tree.end_col_offset) - 1
        src = self.source
        return src[start] == 40 and src[end] == 41 and self.closing(start) == end

    def elements(self, elts: list[ast.expr]) -> list[cst.CSTNode]:
        out = []
        for elt in elts:
            if type(elt) is ast.Starred:
                node = _make(cst.StarredElement)(value=self.expr(elt.value))
                self.span(node, elt)
            else:
                node = _make(cst.Element)(value=self.expr(elt))
            out.append(node)
        return out

    def tuple_(self, tree: ast.Tuple) -> cst.CSTNode:
        if tree.elts and not self.parenthesized_tuple(tree):
            return _make(cst.Tuple)(elements=self.elements(tree.elts), lpar=_NO_PARENS, rpar=_NO_PARENS)
        return _make(cst.Tuple)(elements=self.elements(tree.elts), lpar=[_make(cst.LeftParen)()],
                                rpar=[_make(cst.RightParen)()])

    def list_(self, tree: ast.List) -> cst.CSTNode:
        return _make(cst.List)(elements=self.elements(tree.elts))

    def set_(self, tree: ast.Set) -> cst.CSTNode:
        return _make(cst.Set)(elements=self.elements(tree.elts))

    def dict_(self, tree: ast.Dict) -> cst.CSTNode:
        elements = []
        for key, value in zip(tree.keys, tree.values):
            if key is None:
                elements.append(_make(cst.StarredDictElement)(value=self.expr(value)))
            else:
                elements.append(_make(cst.DictElement)(key=self.expr(key), value=self.expr(value)))
        return _make(cst.Dict)(elements=elements)

    def arguments(self, args: list[ast.expr], keywords: list[ast.keyword], reserved: int) -> list[cst.CSTNode]:
        ordered = sorted([*args, *keywords], key=lambda a: (a.lineno, a.col_offset)) if keywords else args
        single = len(ordered) == 1
        out = []
        for arg in ordered:
            kind = type(arg)
            if kind is ast.keyword:
                if arg.arg is None:
                    node = _make(cst.Arg)(value=self.expr(arg.value), star="**")
                else:
                    keyword = _make(cst.Name)(value=arg.arg)
                    self.spans[id(keyword)] = (arg.lineno, arg.col_offset, arg.lineno,
                                               arg.col_offset + len(arg.arg.encode()))
                    node = _make(cst.Arg)(value=self.expr(arg.value), keyword=keyword)
                self.span(node, arg)
            elif kind is ast.Starred:
                node = _make(cst.Arg)(value=self.expr(arg.value), star="*")
                self.span(node, arg)
            else:
                value = self.expr(arg, reserved if single else -1)
                if kind is ast.GeneratorExp and single and self.offset(arg.lineno, arg.col_offset) == reserved:
                    object.__setattr__(value, "lpar", _NO_PARENS)  # `sum(x for x in y)`: the call's parentheses
                    object.__setattr__(value, "rpar", _NO_PARENS)
                    self.written.pop(id(value), None)
                node = _make(cst.Arg)(value=value)
                if value.lpar or kind is not ast.GeneratorExp:  # `f((a, b))`: the argument holds the parentheses
                    self.span(node, arg)
                elif id(value) in self.spans:
                    self.spans[id(node)] = self.spans[id(value)]
            out.append(node)
        return out

    def call(self, tree: ast.Call) -> cst.CSTNode:
        func = tree.func
        src = self.source
        open_at = self.offset(func.end_lineno, func.end_col_offset)
        while open_at < len(src) and src[open_at] in _SPACE:
            open_at += 1
        reserved = open_at if open_at < len(src) and src[open_at] == 40 else -1
        return _make(cst.Call)(func=self.expr(func), args=self.arguments(tree.args, tree.keywords, reserved))

    def bin_op(self, tree: ast.BinOp) -> cst.CSTNode:
        return _make(cst.BinaryOperation)(left=self.expr(tree.left), operator=_operator(_BINARY[type(tree.op)]),
                                          right=self.expr(tree.right))

    def bool_op(self, tree: ast.BoolOp) -> cst.CSTNode:
        operator = _operator(cst.And if type(tree.op) is ast.And else cst.Or)
        values = tree.values
        node = self.expr(values[0])
        for value in values[1:]:
            right = self.expr(value)
            node = _make(cst.BooleanOperation)(left=node, operator=operator, right=right)
        return node

    def unary_op(self, tree: ast.UnaryOp) -> cst.CSTNode:
        return _make(cst.UnaryOperation)(operator=_operator(_UNARY[type(tree.op)]), expression=self.expr(tree.operand))

    def compare(self, tree: ast.Compare) -> cst.CSTNode:
        targets = [_make(cst.ComparisonTarget)(operator=_operator(_COMPARE[type(op)]), comparator=self.expr(value))
                   for op, value in zip(tree.ops, tree.comparators)]
        return _make(cst.Comparison)(left=self.expr(tree.left), comparisons=targets)

    def if_exp(self, tree: ast.IfExp) -> cst.CSTNode:
        return _make(cst.IfExp)(test=self.expr(tree.test), body=self.expr(tree.body), orelse=self.expr(tree.orelse))

    def named_expr(self, tree: ast.NamedExpr) -> cst.CSTNode:
        return _make(cst.NamedExpr)(target=self.expr(tree.target), value=self.expr(tree.value))

    def lambda_(self, tree: ast.Lambda) -> cst.CSTNode:
        return _make(cst.Lambda)(params=self.parameters(tree.args), body=self.expr(tree.body))

    def await_(self, tree: ast.Await) -> cst.CSTNode:
        return _make(cst.Await)(expression=self.expr(tree.value))

    def yield_(self, tree: ast.Yield) -> cst.CSTNode:
        return _make(cst.Yield)(value=self.expr(tree.value) if tree.value is not None else None)

    def yield_from(self, tree: ast.YieldFrom) -> cst.CSTNode:
        return _make(cst.Yield)(value=_make(cst.From)(item=self.expr(tree.value)))

    def comp_for(self, generators: list[ast.comprehension]) -> cst.CSTNode:
        inner = None
        for generator in reversed(generators):
            inner = _make(cst.CompFor)(target=self.expr(generator.target), iter=self.expr(generator.iter),
                                       ifs=[_make(cst.CompIf)(test=self.expr(t)) for t in generator.ifs],
                                       inner_for_in=inner,
                                       asynchronous=_make(cst.Asynchronous)() if generator.is_async else None)
        return inner

    def list_comp(self, tree: ast.ListComp) -> cst.CSTNode:
        return _make(cst.ListComp)(elt=self.expr(tree.elt), for_in=self.comp_for(tree.generators))

    def set_comp(self, tree: ast.SetComp) -> cst.CSTNode:
        return _make(cst.SetComp)(elt=self.expr(tree.elt), for_in=self.comp_for(tree.generators))

    def generator_exp(self, tree: ast.GeneratorExp) -> cst.CSTNode:
        return _make(cst.GeneratorExp)(elt=self.expr(tree.elt), for_in=self.comp_for(tree.generators),
                                       lpar=[_make(cst.LeftParen)()], rpar=[_make(cst.RightParen)()])

    def dict_comp(self, tree: ast.DictComp) -> cst.CSTNode:
        return _make(cst.DictComp)(key=self.expr(tree.key), value=self.expr(tree.value),
                                   for_in=self.comp_for(tree.generators))

    def starred(self, tree: ast.Starred) -> cst.CSTNode:
        return _make(cst.StarredElement)(value=self.expr(tree.value))

    def parameters(self, args: ast.arguments) -> cst.CSTNode:
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        built = [self.param(a, d) for a, d in zip(positional, defaults)]
        posonly = built[:len(args.posonlyargs)]
        star_arg: object = cst.MaybeSentinel.DEFAULT
        if args.vararg is not None:
            star_arg = self.param(args.vararg, None, "*")
        elif args.kwonlyargs:
            star_arg = _make(cst.ParamStar)()
        return _make(cst.Parameters)(
            params=built[len(args.posonlyargs):], posonly_params=posonly,
            posonly_ind=_make(cst.ParamSlash)() if posonly else cst.MaybeSentinel.DEFAULT,
            star_arg=star_arg,
            kwonly_params=[self.param(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults)],
            star_kwarg=self.param(args.kwarg, None, "**") if args.kwarg is not None else None)

    def param(self, arg: ast.arg, default: ast.expr | None, star: str = "") -> cst.CSTNode:
        name = _make(cst.Name)(value=arg.arg)
        self.spans[id(name)] = (arg.lineno, arg.col_offset, arg.lineno, arg.col_offset + len(arg.arg.encode()))
        node = _make(cst.Param)(name=name, star=star,
                                annotation=self.annotation(arg.annotation) if arg.annotation is not None else None,
                                default=self.expr(default) if default is not None else None)
        self.spans[id(node)] = (arg.lineno, arg.col_offset - len(star), arg.lineno,
                                arg.col_offset + len(arg.arg.encode()))  # LibCST's place of a parameter: `**name`
        return node


_COMPOUND = {ast.FunctionDef: _Builder.function_def, ast.AsyncFunctionDef: _Builder.function_def,
             ast.ClassDef: _Builder.class_def, ast.If: _Builder.if_, ast.For: _Builder.for_,
             ast.AsyncFor: _Builder.for_, ast.While: _Builder.while_, ast.With: _Builder.with_,
             ast.AsyncWith: _Builder.with_, ast.Try: _Builder.try_}
for _name in ("Match", "TryStar", "TypeAlias"):
    if hasattr(ast, _name):
        _COMPOUND[getattr(ast, _name)] = _Builder.unsupported
_SMALL = {ast.Expr: _Builder.expr_stmt, ast.Assign: _Builder.assign, ast.AugAssign: _Builder.aug_assign,
          ast.AnnAssign: _Builder.ann_assign, ast.Return: _Builder.return_, ast.Delete: _Builder.delete,
          ast.Raise: _Builder.raise_, ast.Assert: _Builder.assert_, ast.Import: _Builder.import_,
          ast.ImportFrom: _Builder.import_from, ast.Global: _Builder.global_, ast.Nonlocal: _Builder.nonlocal_,
          ast.Pass: _Builder.pass_, ast.Break: _Builder.break_, ast.Continue: _Builder.continue_}
_EXPRESSIONS = {ast.Name: _Builder.name, ast.Constant: _Builder.constant, ast.Attribute: _Builder.attribute,
                ast.Subscript: _Builder.subscript, ast.Tuple: _Builder.tuple_, ast.List: _Builder.list_,
                ast.Set: _Builder.set_, ast.Dict: _Builder.dict_, ast.Call: _Builder.call, ast.BinOp: _Builder.bin_op,
                ast.BoolOp: _Builder.bool_op, ast.UnaryOp: _Builder.unary_op, ast.Compare: _Builder.compare,
                ast.IfExp: _Builder.if_exp, ast.NamedExpr: _Builder.named_expr, ast.Lambda: _Builder.lambda_,
                ast.Await: _Builder.await_, ast.Yield: _Builder.yield_, ast.YieldFrom: _Builder.yield_from,
                ast.ListComp: _Builder.list_comp, ast.SetComp: _Builder.set_comp,
                ast.GeneratorExp: _Builder.generator_exp, ast.DictComp: _Builder.dict_comp,
                ast.Starred: _Builder.starred}


@dataclasses.dataclass
class Built:
    module: cst.Module
    spans: dict[int, Span]  # id(node) -> its place; the nodes live as long as the module
    written: dict[int, tuple[int, int]]  # id(node) -> the offsets of a parenthesized node's source, parentheses in
    blanked: list[tuple[str, int, int]]  # (key, first line, last line) of each body left out
    left_out_calls: list[cst.CSTNode]  # the calls of a capitalised name in what was left out
    line_starts: list[int]  # the byte offset of each line

    def code_for(self, source: bytes, node: cst.CSTNode) -> str | None:
        """The source of `node` as LibCST prints a node it parsed (parentheses in); None where it has no place."""
        written = self.written.get(id(node))
        if written is not None:
            return source[written[0]:written[1]].decode("utf-8", errors="replace")
        span = self.spans.get(id(node))
        if span is None:
            return None
        starts = self.line_starts
        return source[starts[span[0] - 1] + span[1]:starts[span[2] - 1] + span[3]].decode("utf-8", errors="replace")

    def column(self, source: bytes, line: int, col: int) -> int:
        """A byte column of Python's tree as LibCST counts it (characters)."""
        start = self.line_starts[line - 1]
        head = source[start:start + col]
        return col if head.isascii() else len(head.decode("utf-8", errors="replace"))


def build_module(source: bytes, tree: ast.Module, blank: frozenset[str] = frozenset()) -> Built:
    """The LibCST module of `source` built from its Python `tree`, and the place of each node that has one, with the bodies of the functions in `blank`
    ("f", "Cls.m") and module-level assignments ("=name") left out: a `pass` in place of each (a body that begins on
    its signature's line, an assignment sharing a line with another statement, stay). Raises Unsupported for what it
    does not build."""
    if source.startswith(b"\xef\xbb\xbf"):
        raise Unsupported("byte order mark")
    if source.count(b"\r") != source.count(b"\r\n"):
        raise Unsupported("a line that ends in a lone carriage return")
    for line in source.split(b"\n", 2)[:2]:
        found = _CODING.match(line)
        if found and found.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
            raise Unsupported("coding cookie")
    builder = _Builder(source, blank)
    try:
        module = builder.module(tree)
    except RecursionError as err:
        raise Unsupported("nested too deeply") from err
    return Built(module, builder.spans, builder.written, builder.blanked, builder.left_out_calls, builder.starts)
