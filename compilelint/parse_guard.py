"""What LibCST's native parser must not be handed, found before it sees a file, and the one valid
indentation it rejects.

LibCST parses in native code that no signal interrupts. Measured with libcst 1.9 on Python 3.11
(benchmarks/fuzz.py generates these shapes; tests/test_robustness_parse.py holds the limits):
- nesting overflows its stack: from about 1,270 nested parentheses, or a 10,000-term `a + a + ...`, the
  process dies with SIGSEGV; nested calls take polynomial time long before (`f(f(...))` 300 deep: 0.9 s,
  1,000 deep: 10.7 s);
- chains that nest the tree without brackets take polynomial time: `x[0][0]...` 1,000 long 1.2 s, 3,000
  long 33 s; `a + a + ...` 3,000 terms 3.3 s, 100,000 terms over 300 s;
- more than 3,000 adjacent string literals (`"a" "b" ...`, which Python joins into one) are a syntax error;
- `a and a and ...`, one flat node to Python, nests one level per operator in LibCST: 64,000 terms crashed it.
CPython's own parser, which the analyzer runs anyway and which is linear and guarded, rejects more than
200 nested brackets ("too many nested parentheses") and expressions about 3,000 deep (RecursionError), so
neither is valid Python. Within what CPython accepts, an expression deeper than MAX_EXPRESSION_DEPTH (a
third of CPython's limit; the deepest in 9,531 files of installed packages, numpy, sympy, torch and timm
included, is 566, in generated sympy tables) and more adjacent literals than LibCST takes are reported as
E005 rather than parsed. Where CPython cannot parse a file (a syntax error, or syntax newer than the
running Python), the same limits are checked on its tokens. (One shape gets through halfway: before Python
3.12 the tokenize module sees `f'{f'{...}'}'`, which nests quotes as only 3.12 allows, as half as many
brackets, so LibCST may be handed up to about 400 such levels: about 2 s, no crash.)
"""

from __future__ import annotations

import ast
import contextlib
import io
import threading
import tokenize
import warnings
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.base import CSTNode

MAX_BRACKET_DEPTH = 200  # CPython's tokenizer limit (MAXLEVEL in Parser/tokenizer.h)
MAX_EXPRESSION_DEPTH = 1000
LIBCST_MAX_STRING_PIECES = 3000  # adjacent literals ("a" "b" ...): LibCST 1.9 reports a syntax error beyond

_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
# Operators that nest LibCST's tree one level per use: binary and unary arithmetic and bitwise operators, the
# attribute dot, `and`/`or` (flat in Python's tree, nested in LibCST's). Comparisons make one flat node.
_NESTING_OPS = frozenset("+ - * / // % @ ** << >> & | ^ ~ .".split())
_NESTING_KEYWORDS = frozenset({"not", "else", "lambda", "await", "and", "or"})
_CHAIN_BREAKS = frozenset({",", ";", "="})


@dataclass
class PythonParse:
    """Python's own parse of a file: the tree, or why there is none."""

    tree: ast.Module | None
    error: BaseException | None = None


def parse_python(source: bytes) -> PythonParse:
    try:
        with warnings.catch_warnings():  # Python's SyntaxWarnings about user code are not ours to print
            warnings.simplefilter("ignore")
            return PythonParse(ast.parse(source))
    except (SyntaxError, ValueError, MemoryError, RecursionError) as err:
        return PythonParse(None, err)


def _skip_validation(self: CSTNode) -> None:
    return None


_VALIDATE = CSTNode.__post_init__
_PARSING = threading.Lock()  # one parse at a time patches and restores; the original is what is restored


@contextlib.contextmanager
def _unvalidated_nodes():
    """Nodes built meanwhile skip `CSTNode._validate`. Every node's dataclass `__init__` calls `__post_init__`, which
    validates it: a check for trees built by hand, redundant for the native parser's own output (LibCST's own
    comment on `__post_init__` says as much), and 12 % of the parse's CPU time (libcst 1.9, timm's files, runs
    alternating file by file). In a worker nothing else builds nodes meanwhile; a thread of a library caller that
    does gets them unvalidated for that long."""
    with _PARSING:
        CSTNode.__post_init__ = _skip_validation
        try:
            yield
        finally:
            CSTNode.__post_init__ = _VALIDATE


def parse_cst(source: bytes) -> cst.Module:
    """LibCST's parse of a file that passed `too_complex`, without re-validating the nodes the parser built."""
    with warnings.catch_warnings(), _unvalidated_nodes():  # Python's SyntaxWarnings about user code are not ours
        warnings.simplefilter("ignore")
        return cst.parse_module(source)


def too_complex(source: bytes, parsed: PythonParse) -> tuple[int, str] | None:
    """(line, reason) when the file is beyond the limits above; None when the native parser may have it."""
    err = parsed.error
    if isinstance(err, (RecursionError, MemoryError)):
        return 1, (f"an expression is nested too deeply for Python's own parser ({type(err).__name__}); "
                   "Python cannot run this file either")
    if isinstance(err, SyntaxError) and "too many nested parentheses" in str(err.msg):
        return err.lineno or 1, (f"more than {MAX_BRACKET_DEPTH} nested brackets (Python's own limit: "
                                 "SyntaxError: too many nested parentheses)")
    if parsed.tree is not None:
        return _deep_expression(source, parsed.tree)
    return _token_limits(source)


class _Spans:
    """Byte spans of nodes in the source (ast columns are UTF-8 byte offsets; the line starts are computed
    the first time a node spans several lines)."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._starts: list[int] | None = None

    def _offset(self, line: int, col: int) -> int | None:
        if self._starts is None:
            self._starts = [0]
            for text in self.source.splitlines(keepends=True):  # bytes split on \n, \r\n and \r, as Python
                self._starts.append(self._starts[-1] + len(text))
        return self._starts[line - 1] + col if 0 < line <= len(self._starts) else None

    def length(self, node: ast.expr) -> int:
        """Bytes from the node's start to its end (large where positions are missing: then it is examined)."""
        if node.end_lineno is None or node.end_col_offset is None:
            return len(self.source)
        if node.end_lineno == node.lineno:
            return node.end_col_offset - node.col_offset
        start, end = self._offset(node.lineno, node.col_offset), self._offset(node.end_lineno, node.end_col_offset)
        return len(self.source) if start is None or end is None else end - start

    def text(self, node: ast.expr) -> bytes:
        start, end = self._offset(node.lineno, node.col_offset), self._offset(node.end_lineno, node.end_col_offset)
        return self.source[start:end] if start is not None and end is not None else b""


def _deep_expression(source: bytes, tree: ast.Module) -> tuple[int, str] | None:
    """Walks only the statements and, of their expressions, those whose source spans at least half the
    depth limit in bytes: each level of an expression takes at least one byte of its own (an operator, a
    dot, a name), so a shorter one cannot be that deep. Ordinary files walk no expression at all."""
    threshold = MAX_EXPRESSION_DEPTH // 2
    spans = _Spans(source)
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):
                stack.append(child)
                continue
            if spans.length(child) < threshold:
                continue
            depth, strings = _expression_depth(child)
            if depth > MAX_EXPRESSION_DEPTH:
                return child.lineno, (f"an expression {depth} levels deep (a chain of operators, calls, "
                                      f"subscripts or attributes; the limit is {MAX_EXPRESSION_DEPTH})")
            for string in strings:  # each adjacent literal takes at least two bytes
                if spans.length(string) > 2 * LIBCST_MAX_STRING_PIECES and \
                        _string_pieces(spans.text(string)) > LIBCST_MAX_STRING_PIECES:
                    return string.lineno, _too_many_pieces()
    return None


def _expression_depth(root: ast.expr) -> tuple[int, list[ast.expr]]:
    """The depth of an expression in expression nodes, and its string literals (which LibCST, unlike Python,
    nests one level per adjacent piece: `"a" "b" "c"`)."""
    deepest = 0
    strings: list[ast.expr] = []
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))):
            strings.append(node)
            continue
        # `a and b and c` is one node to Python and a nest of two to LibCST (one per operator)
        below = depth + (len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1)
        for child in ast.iter_child_nodes(node):
            stack.append((child, below if isinstance(child, ast.expr) else depth))
    return deepest, strings


def _string_pieces(text: bytes) -> int:
    pieces = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text.decode("utf-8", "replace")).readline):
            pieces += tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_START", -1)
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return pieces


def _too_many_pieces() -> str:
    return (f"more than {LIBCST_MAX_STRING_PIECES} adjacent string literals in one expression (LibCST's parser "
            "rejects them; Python joins them into one)")


def _token_limits(source: bytes) -> tuple[int, str] | None:
    """The bracket depth and operator chains of a file Python cannot parse, from its tokens. A chain counts
    the operators that nest the tree (`a + b * c`: 2) since the last comma, semicolon, `=` or statement
    end at the same bracket level, and calls or subscripts that follow an operand; it over-counts (the
    operators of `a*b + c*d` nest 2 deep, not 3), which only errs on the side of not parsing."""
    depth, chains, pieces = 0, [0], 0
    previous: tokenize.TokenInfo | None = None
    try:
        for tok in tokenize.tokenize(io.BytesIO(source).readline):
            kind, text = tok.type, tok.string
            op = text if kind == tokenize.OP else ""
            if op in _OPEN:
                if previous is not None and _ends_operand(previous):
                    chains[-1] += 1  # a call or subscript of what came before
                depth += 1
                if depth > MAX_BRACKET_DEPTH:
                    return tok.start[0], (f"more than {MAX_BRACKET_DEPTH} nested brackets (Python's own limit: "
                                          "SyntaxError: too many nested parentheses)")
                chains.append(0)
            elif op in _CLOSE:
                if depth:
                    depth -= 1
                    chains.pop()
            elif op in _NESTING_OPS or (kind == tokenize.NAME and text in _NESTING_KEYWORDS):
                chains[-1] += 1
            elif op in _CHAIN_BREAKS or kind == tokenize.NEWLINE:
                chains[-1] = 0
            if kind == tokenize.STRING or kind == getattr(tokenize, "FSTRING_START", -1):
                pieces += 1
                if pieces > LIBCST_MAX_STRING_PIECES:
                    return tok.start[0], _too_many_pieces()
            elif kind not in (tokenize.NL, tokenize.COMMENT):
                pieces = 0
            if chains[-1] > MAX_EXPRESSION_DEPTH or (len(chains) > 1 and chains[-2] > MAX_EXPRESSION_DEPTH):
                return tok.start[0], (f"a chain of more than {MAX_EXPRESSION_DEPTH} operators, calls, "
                                      "subscripts or attributes in one expression")
            if kind not in (tokenize.NL, tokenize.COMMENT):
                previous = tok
    except (tokenize.TokenError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
        pass  # a lexical error ends the scan; the parser stops at the same place
    return None


def _ends_operand(tok: tokenize.TokenInfo) -> bool:
    if tok.type in (tokenize.NUMBER, tokenize.STRING):
        return True
    if tok.type == tokenize.NAME:
        return tok.string not in _KEYWORDS
    return tok.type == tokenize.OP and tok.string in _CLOSE


_KEYWORDS = frozenset({"and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
                       "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
                       "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"})


# --- indentation that mixes tabs and spaces --------------------------------------------------------------------

@dataclass
class Reindented:
    """A file's bytes with the indentation of each logical line spelled in spaces, as Python measures it
    (a tab to the next multiple of 8), and by how many columns each changed line moved."""

    source: bytes
    shift: dict[int, tuple[int, int]]  # line -> (columns of new indentation, columns added)


def reindent_tabs(source: bytes) -> Reindented | None:
    """LibCST rejects some indentation that Python accepts (`\\t      if x:` then 17 spaces: Python checks that
    the lines are consistent at tab sizes 8 and 1, LibCST is stricter). Python has accepted the file; spelling
    each logical line's indentation in spaces gives LibCST the same blocks. Only lines that start a logical
    line change: the insides of strings and bracketed continuation lines stay as they are."""
    if source.count(b"\r") != source.count(b"\r\n"):
        return None  # lone CRs: the tokenize module numbers lines differently from the parsers
    try:
        tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
    except (tokenize.TokenError, SyntaxError, ValueError, UnicodeDecodeError, LookupError):
        return None
    lines = list(io.BytesIO(source))  # split as tokenize reads them
    starts: set[int] = set()
    at_start = True
    for tok in tokens:
        if tok.type in (tokenize.ENCODING, tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            continue
        if tok.type == tokenize.NEWLINE:
            at_start = True
            continue
        if at_start:
            starts.add(tok.start[0])
            at_start = False
    shift: dict[int, tuple[int, int]] = {}
    for number in sorted(starts):
        if number > len(lines):
            continue
        line = lines[number - 1]
        stripped = line.lstrip(b" \t\x0c")
        indent = line[:len(line) - len(stripped)]
        if b"\t" not in indent:
            continue
        column = 0
        for byte in indent:
            column = (column // 8 + 1) * 8 if byte == 9 else 0 if byte == 12 else column + 1
        lines[number - 1] = b" " * column + stripped
        shift[number] = (column, column - len(indent))
    if not shift:
        return None
    return Reindented(b"".join(lines), shift)


def restore_columns(findings: list, shift: dict[int, tuple[int, int]]) -> None:
    """Columns of findings on reindented lines, back in the file's own spelling. Their fixes are dropped: a
    fix's text is generated from the reindented code, whose indentation is not the file's."""
    for finding, _, _ in findings:
        finding.fix = None
        if finding.line in shift:
            finding.col = _back(finding.col, shift[finding.line])
        if finding.end_line in shift:
            finding.end_col = _back(finding.end_col, shift[finding.end_line])


def _back(col: int, moved: tuple[int, int]) -> int:
    width, added = moved
    return max(col - added, 0) if col >= width else min(col, width - added)
