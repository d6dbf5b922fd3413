"""Apply the LibCST fixes that rules attach to findings: `--fix`, `--diff`, `--unsafe-fixes`.

Fixes are text replacements of exact source spans (positions from LibCST), applied bottom-up per
file; overlapping fixes wait for the next round. A file is only written if the result still parses,
and it is written atomically (temporary file + rename), so an interrupted run never leaves half a
file. Rounds repeat until nothing changes, so a second `--fix` run changes nothing.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict

import libcst as cst

from compilelint.atomic import write_atomic
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


def _decode(data: bytes) -> tuple[str, str]:
    module = cst.parse_module(data)
    return data.decode(module.encoding), module.encoding


def fixes_by_file(findings: list[Finding], unsafe: bool) -> dict[str, list[Fix]]:
    out: dict[str, list[Fix]] = defaultdict(list)
    for f in findings:
        if f.fix is not None and (f.fix.safe or unsafe):
            out[f.path].append(f.fix)
    return out


def fix_files(lint_once, unsafe: bool, write: bool) -> tuple[dict[str, tuple[str, str]], int]:
    """Run `lint_once()` (-> findings) and apply fixes until none apply.

    Returns ({path: (original text, fixed text)}, number of fixes applied). With write=False the
    files are left alone and only the first round is computed (what --diff shows).
    """
    originals: dict[str, str] = {}
    current: dict[str, str] = {}
    applied_total = 0
    for _ in range(MAX_ROUNDS if write else 1):
        pending = fixes_by_file(lint_once(), unsafe)
        applied_round = 0
        for path, fixes in sorted(pending.items()):
            with open(path, "rb") as fh:
                data = fh.read()
            text, encoding = _decode(data)
            originals.setdefault(path, text)
            new_text, applied = apply_to_text(text, fixes)
            try:
                cst.parse_module(new_text.encode(encoding))
            except Exception:
                continue  # a fix that would break the file is not applied
            if new_text == text:
                continue
            current[path] = new_text
            applied_round += applied
            if write:
                write_atomic(path, new_text.encode(encoding))
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
