"""Line/column positions for the few nodes that carry findings.

LibCST's PositionProvider records a range for every node of a module, which costs about as much as
parsing it. A linter only needs positions for the handful of nodes it reports, so this runs the
module's code generation once, counting lines and columns, and records only the nodes asked for.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Iterable, Iterator

import libcst as cst
from libcst._nodes.internal import CodegenState

_NEWLINES = re.compile(r"\r\n?|\n")
_NO_RECORD = contextlib.nullcontext()


class _SelectivePositionState(CodegenState):
    """A codegen state that tracks line/column and records ranges only for `wanted` nodes."""

    def __init__(self, module: cst.Module, wanted: set[int], inclusive: set[int] | None = None) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = wanted
        self.inclusive = inclusive or set()  # nodes whose whitespace-inclusive range is wanted (fixes)
        self.inclusive_ranges: dict[int, tuple[int, int, int, int]] = {}
        self.line = 1
        self.column = 0
        self.ranges: dict[int, tuple[int, int, int, int]] = {}
        self._starts: list[tuple[int, int] | None] = []

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self._advance(token)

    def add_token(self, value: str) -> None:
        self._advance(value)

    def _advance(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = _NEWLINES.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    # Whitespace-inclusive fallback: used when a node records no syntactic position.
    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        self._starts.append((self.line, self.column) if key in self.wanted or key in self.inclusive else None)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if start is None:
            return
        key = id(node)
        span = (start[0], start[1], self.line, self.column)
        if key in self.inclusive:
            self.inclusive_ranges[key] = span
        if key in self.wanted and key not in self.ranges:
            self.ranges[key] = span

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):  # noqa: ANN001
        if id(node) not in self.wanted:
            return _NO_RECORD
        # Some nodes take their start or end from a child (an `if` ends where its body ends):
        # those children are generated inside this context, so asking for them now is in time.
        for hoisted in (start_node, end_node):
            if hoisted is not None:
                self.wanted.add(id(hoisted))
        return self._record(node, start_node, end_node)

    @contextlib.contextmanager
    def _record(self, node, start_node, end_node) -> Iterator[None]:  # noqa: ANN001
        start = (self.line, self.column)
        yield
        end = (self.line, self.column)
        if start_node is not None:
            start = self.ranges[id(start_node)][:2]
        if end_node is not None:
            end = self.ranges[id(end_node)][2:]
        # A syntactic position wins over the whitespace-inclusive one recorded in after_codegen.
        self.ranges[id(node)] = (start[0], start[1], end[0], end[1])


def _first_lines(body: list[cst.CSTNode], nodes: list[ast.stmt]) -> list[tuple[int, ast.stmt]] | None:
    """For each LibCST statement of `body`: the line its code begins on (leading blank and comment lines
    included) and the first of Python's statements it holds; None when the two cannot be matched one to one."""
    firsts: list[tuple[int, ast.stmt]] = []
    end = 0
    for node in nodes:
        if firsts and node.lineno <= end:  # `a = 1; b = 2`: one LibCST SimpleStatementLine
            end = max(end, node.end_lineno or node.lineno)
            continue
        decorators = getattr(node, "decorator_list", ())
        firsts.append((min([node.lineno, *(d.lineno for d in decorators)]), node))
        end = node.end_lineno or node.lineno
    if len(firsts) != len(body):
        return None
    return [(first - len(getattr(stmt, "leading_lines", ())), node) for (first, node), stmt in zip(firsts, body)]


def statement_lines(module: cst.Module, source: bytes, tree: ast.Module | None = None) -> list[int] | None:
    """The line on which each top-level statement's code begins (its leading blank and comment lines
    included), read from Python's own parser, which is much cheaper than generating the statements' code
    to count their lines. None when the two parsers' statements cannot be matched one to one."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
    firsts = _first_lines(module.body, tree.body)
    return None if firsts is None else [first for first, _ in firsts]


def _member_lines(cls: cst.CSTNode, firsts: list[tuple[int, ast.stmt]], index: int) -> list[int] | None:
    """The line each statement of a top-level class's body begins on, as statement_lines does for the module."""
    if type(cls) is not cst.ClassDef or type(cls.body) is not cst.IndentedBlock or not isinstance(
            firsts[index][1], ast.ClassDef):
        return None
    members = _first_lines(cls.body.body, firsts[index][1].body)
    return None if members is None else [first for first, _ in members]


def positions_of(module: cst.Module, nodes: Iterable[cst.CSTNode], statements: set[int] | None = None,
                 inclusive: Iterable[cst.CSTNode] = (),
                 inclusive_out: dict[int, tuple[int, int, int, int]] | None = None,
                 starts: list[int] | None = None, members: dict[int, set[int]] | None = None,
                 tree: ast.Module | None = None) -> dict[int, tuple[int, int, int, int]]:
    """Map id(node) -> (line, col, end_line, end_col) for each of `nodes` (1-based lines, 0-based cols).

    Nodes in `inclusive` (what fixes replace) get their whitespace-inclusive range in `inclusive_out`,
    so that replacing that span by the replacement node's code is exact.

    `statements`, if given, are the indexes of the top-level statements that contain the nodes: the
    others are only generated as plain text to count their lines, which is several times cheaper, or,
    with `starts` (``statement_lines``), not generated at all. With `members` too (statement index -> the
    indexes of the statements of that top-level class's body that hold the nodes; -1: the class itself), only
    those statements of a class are generated, from the lines Python's `tree` gives them.
    """
    wanted = {id(n) for n in nodes}
    if not wanted:
        return {}
    state = _SelectivePositionState(module, wanted, {id(n) for n in inclusive})
    if inclusive_out is not None:
        state.inclusive_ranges = inclusive_out
    if statements is None:
        module._codegen(state)
        return state.ranges
    if starts is not None:
        if members and tree is not None:
            ranges = _by_members(module, wanted, state.inclusive, statements, starts, members, tree)
            if ranges is not None:
                ranges, inclusive_ranges = ranges
                if inclusive_out is not None:
                    inclusive_out.update(inclusive_ranges)
                return ranges
        for index in sorted(statements):
            state.line, state.column = starts[index], 0
            module.body[index]._codegen(state)
        return state.ranges
    for empty_line in module.header:
        state._advance(module.code_for_node(empty_line))
    for index, stmt in enumerate(module.body):
        if index in statements:
            stmt._codegen(state)
        else:
            state._advance(module.code_for_node(stmt))
    return state.ranges


def _by_members(module: cst.Module, wanted: set[int], inclusive: set[int], statements: set[int],
                starts: list[int], members: dict[int, set[int]], tree: ast.Module,
                ) -> tuple[dict[int, tuple[int, int, int, int]], dict[int, tuple[int, int, int, int]]] | None:
    """positions_of for `statements`, generating only the members of a class that hold the nodes (a class of
    timm holds a dozen methods, its findings sit in one or two). None when a node was not found in them (a rule
    reported a node outside the statement it walked): the caller then generates whole statements."""
    firsts = _first_lines(module.body, tree.body)
    if firsts is None:
        return None
    state = _SelectivePositionState(module, set(wanted), set(inclusive))
    for index in sorted(statements):
        stmt = module.body[index]
        held = members.get(index, {-1})
        lines = None if -1 in held else _member_lines(stmt, firsts, index)
        if lines is None:
            state.line, state.column = starts[index], 0
            stmt._codegen(state)
            continue
        body = stmt.body
        state.indent_tokens = [state.default_indent if body.indent is None else body.indent]
        for member in sorted(held):
            state.line, state.column = lines[member], 0
            body.body[member]._codegen(state)
        state.indent_tokens = []
    if not (wanted <= state.ranges.keys() and inclusive <= state.inclusive_ranges.keys()):
        return None
    return state.ranges, state.inclusive_ranges
