"""Apply the LibCST fixes that rules attach to findings: `--fix`, `--diff`, `--unsafe-fixes`.

Fixes are text replacements of exact source spans (positions from LibCST), applied bottom-up per
file; overlapping fixes wait for the next round. A file is only written if the result still parses,
and only over the very bytes the fixes were computed from: the lint reports the SHA-256 of what it
analyzed, the file read here must match it, and it is compared once more just before the replacement
(compilelint/atomic.py: replace_verified), so an edit saved while --fix runs is kept and the file is
skipped with a message. Read-only files, symlinks, hard links, mode and owner: see atomic.py. A file that
cannot be written is a message, never the end of the run. Rounds repeat until nothing changes, so a
second `--fix` run changes nothing.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections import defaultdict
from typing import Callable

import libcst as cst
from libcst._nodes.internal import CodegenState

from compilelint.atomic import NotWritten, digest_of, replace_verified
from compilelint.findings import Finding, Fix

_NEWLINE = re.compile(r"\r\n|\r|\n")
MAX_ROUNDS = 10


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts


def apply_to_text(text: str, fixes: list[Fix]) -> tuple[str, int]:
    """Apply non-overlapping fixes; returns (new text, number applied)."""
    starts = _line_starts(text)

    def offset(line: int, col: int) -> int:
        return starts[line - 1] + col if 0 < line <= len(starts) else len(text)

    spans = sorted(((offset(f.start_line, f.start_col), offset(f.end_line, f.end_col), f) for f in fixes),
                   key=lambda s: (s[0], s[1]))
    chosen: list[tuple[int, int, Fix]] = []
    last_end = -1
    for start, end, fix in spans:
        if start >= last_end:
            chosen.append((start, end, fix))
            last_end = end
    for start, end, fix in reversed(chosen):
        text = text[:start] + fix.text + text[end:]
    return text, len(chosen)


def span_text(lines: list[str], line: int, col: int, end_line: int, end_col: int) -> str:
    """The source text of [line:col, end_line:end_col) (1-based lines, 0-based columns), newlines as "\n"."""
    if not (0 < line <= end_line <= len(lines) + 1):
        return ""
    if line == end_line:
        return lines[line - 1][col:end_col] if line <= len(lines) else ""
    parts = [lines[line - 1][col:], *lines[line:end_line - 1]]
    return "\n".join(parts) + "\n" + (lines[end_line - 1][:end_col] if end_line <= len(lines) else "")


def _codegen(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=[indent] if indent else [])
    node._codegen(state)
    return "".join(state.tokens)


def replacement_in_place(module: cst.Module, old: cst.CSTNode, new: cst.CSTNode, original: str,
                          first_line: str) -> str | None:
    """`new` as it reads where `old` stands. A node spanning lines carries the indentation of its block only
    implicitly (LibCST writes it from the enclosing blocks), so `code_for_node` alone would put the lines after a
    newline at column 0 (`) -> Tensor:` of a method). The block's indentation is the prefix of the first line's
    leading whitespace with which `old` comes out exactly as the file has it; where none does, no fix is offered
    rather than one that rewrites more than it means to."""
    original = original.replace("\r\n", "\n").replace("\r", "\n")
    leading = first_line[:len(first_line) - len(first_line.lstrip(" \t"))]
    for k in range(len(leading), -1, -1):
        if _codegen(module, old, leading[:k]).replace(module.default_newline, "\n") == original:
            return _codegen(module, new, leading[:k])
    return None


def _decode(data: bytes) -> tuple[str, str]:
    module = cst.parse_module(data)
    return data.decode(module.encoding), module.encoding


def fixes_by_file(findings: list[Finding], unsafe: bool) -> dict[str, list[Fix]]:
    out: dict[str, list[Fix]] = defaultdict(list)
    for f in findings:
        if f.fix is not None and (f.fix.safe or unsafe):
            out[f.path].append(f.fix)
    return out


def report_not_fixed(path: str, reason: str) -> None:
    print(f"compilelint: {path}: fixes not written: {reason}", file=sys.stderr)


def fix_files(lint_once, unsafe: bool, write: bool,  # noqa: ANN001
              on_skip: Callable[[str, str], None] = report_not_fixed) -> tuple[dict[str, tuple[str, str]], int]:
    """Run `lint_once()` (-> a LintResult, or its findings) and apply fixes until none apply.

    Returns ({path: (original text, fixed text)}, number of fixes applied). With write=False the
    files are left alone and only the first round is computed (what --diff shows). A file that cannot be
    fixed safely (changed since it was analyzed, read-only, unwritable) is passed to `on_skip(path,
    reason)` once and left alone for the rest of the run.
    """
    originals: dict[str, str] = {}
    current: dict[str, str] = {}
    skipped: set[str] = set()
    applied_total = 0

    def skip(path: str, reason: str) -> None:
        skipped.add(path)
        on_skip(path, reason)

    for _ in range(MAX_ROUNDS if write else 1):
        outcome = lint_once()
        analyzed = getattr(outcome, "digests", {})
        pending = fixes_by_file(getattr(outcome, "findings", outcome), unsafe)
        applied_round = 0
        for path, fixes in sorted(pending.items()):
            if path in skipped:
                continue
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError as err:
                skip(path, f"cannot read it: {err.strerror or err}")
                continue
            digest = digest_of(data)
            if path in analyzed and analyzed[path] != digest:
                skip(path, "it changed since it was analyzed (saved meanwhile?); left as it is")
                continue
            try:
                text, encoding = _decode(data)
            except Exception:  # noqa: BLE001 - it parsed when analyzed; whatever it is now is not ours to fix
                skip(path, "it no longer parses; left as it is")
                continue
            new_text, applied = apply_to_text(text, fixes)
            try:
                cst.parse_module(new_text.encode(encoding))
            except Exception:
                continue  # a fix that would break the file is not applied
            if new_text == text:
                continue
            if write:
                try:
                    replace_verified(path, new_text.encode(encoding), digest)
                except NotWritten as err:
                    skip(path, str(err))
                    continue
                except OSError as err:
                    skip(path, f"cannot write it: {err.strerror or err}")
                    continue
            originals.setdefault(path, text)
            current[path] = new_text
            applied_round += applied
        applied_total += applied_round
        if not applied_round:
            break
    return {p: (originals[p], current[p]) for p in current}, applied_total


def unified_diff(changes: dict[str, tuple[str, str]]) -> str:
    out = []
    for path, (before, after) in sorted(changes.items()):
        out.extend(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}"))
    return "".join(out)
