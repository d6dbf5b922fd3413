"""What LibCST's native parser must not be handed, found before it sees a file, and the one valid
indentation it rejects.

LibCST parses in native code that no signal interrupts. Measured with libcst 1.9 on Python 3.11
(benchmarks/fuzz.py generates these shapes; tests/test_robustness_parse.py holds the limits):
- nesting overflows its stack: from about 1,270 nested parentheses the process dies with SIGSEGV, and
  nested calls take polynomial time long before (`f(f(...))` 300 deep: 0.9 s, 1,000 deep: 10.7 s);
- chains that nest the tree without brackets take polynomial time: `x[0][0]...` 1,000 long 1.2 s, 3,000
  long 33 s; `a + a + ...` 3,000 terms 3.3 s, 100,000 terms over 300 s.
CPython's own parser, which the analyzer runs anyway and which is linear and guarded, rejects more than
200 nested brackets ("too many nested parentheses") and expressions about 3,000 deep (RecursionError), so
neither is valid Python. Within what CPython accepts, an expression deeper than MAX_EXPRESSION_DEPTH (a
third of CPython's limit; the deepest in 9,531 files of installed packages, numpy, sympy, torch and timm
included, is 566, in generated sympy tables) is reported as E005 rather than parsed. Where CPython cannot
parse a file (a syntax error, or syntax newer than the running Python), the same two limits are checked
on its tokens.
"""

from __future__ import annotations

import ast
import io
import tokenize
import warnings
from dataclasses import dataclass

MAX_BRACKET_DEPTH = 200  # CPython's tokenizer limit (MAXLEVEL in Parser/tokenizer.h)
MAX_EXPRESSION_DEPTH = 1000

_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")
# Operators that nest the tree one level per use: binary and unary arithmetic and bitwise operators, the
# attribute dot. Comparisons and `and`/`or` make one flat node, so they do not count.
_NESTING_OPS = frozenset("+ - * / // % @ ** << >> & | ^ ~ .".split())
_NESTING_KEYWORDS = frozenset({"not", "else", "lambda", "await"})
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


def _line_starts(source: bytes) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):  # bytes split on \n, \r\n and \r only, as Python's lines
        starts.append(starts[-1] + len(line))
    return starts


def _deep_expression(source: bytes, tree: ast.Module) -> tuple[int, str] | None:
    """Walks only the statements and, of their expressions, those whose source spans at least half the
    depth limit in bytes: each level of an expression takes at least one byte of its own (an operator, a
    dot, a name), so a shorter one cannot be that deep. Ordinary files walk no expression at all."""
    threshold = MAX_EXPRESSION_DEPTH // 2
    starts: list[int] | None = None
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):
                stack.append(child)
                continue
            end_line, end_col = child.end_lineno, child.end_col_offset
            if end_line is None or end_col is None:
                span = threshold
            elif end_line == child.lineno:
                span = end_col - child.col_offset
            else:
                if starts is None:
                    starts = _line_starts(source)
                if end_line >= len(starts):
                    span = threshold
                else:
                    span = starts[end_line - 1] + end_col - starts[child.lineno - 1] - child.col_offset
            if span >= threshold:
                depth = _expression_depth(child)
                if depth > MAX_EXPRESSION_DEPTH:
                    return child.lineno, (f"an expression {depth} levels deep (a chain of operators, calls, "
                                          f"subscripts or attributes; the limit is {MAX_EXPRESSION_DEPTH})")
    return None


def _expression_depth(root: ast.expr) -> int:
    deepest = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + isinstance(child, ast.expr)))
    return deepest


def _token_limits(source: bytes) -> tuple[int, str] | None:
    """The bracket depth and operator chains of a file Python cannot parse, from its tokens. A chain counts
    the operators that nest the tree (`a + b * c`: 2) since the last comma, semicolon, `=` or statement
    end at the same bracket level, and calls or subscripts that follow an operand; it over-counts (the
    operators of `a*b + c*d` nest 2 deep, not 3), which only errs on the side of not parsing."""
    depth, chains = 0, [0]
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
