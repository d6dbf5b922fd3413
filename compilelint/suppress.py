"""Suppression comments, in the forms users of flake8/ruff and mypy expect.

    x = t.item()  # noqa: GB401          one code on this line (several: "GB401, TR301")
    x = t.item()  # noqa                  every code on this line
    x = t.item()  # compilelint: ignore[GB401]
    # compilelint: skip-file              anywhere in the file: the file is not checked
A finding that spans several lines is suppressed by a comment on its first or last line.
"""

from __future__ import annotations

import re

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*compilelint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
_SKIP_FILE = re.compile(r"#\s*compilelint:\s*skip-file\b")
ALL = "*"


def file_is_skipped(text: str) -> bool:
    return _SKIP_FILE.search(text) is not None


class Suppressions:
    def __init__(self, by_line: dict[int, set[str]]) -> None:
        self.by_line = by_line

    @classmethod
    def from_lines(cls, lines: list[str]) -> "Suppressions":
        by_line: dict[int, set[str]] = {}
        for number, line in enumerate(lines, 1):
            if "#" not in line:
                continue
            for pattern in (_NOQA, _IGNORE):
                for match in pattern.finditer(line):
                    codes = match.group("codes")
                    found = {c.strip().upper() for c in codes.split(",") if c.strip()} if codes else {ALL}
                    by_line.setdefault(number, set()).update(found)
        return cls(by_line)

    def suppressed(self, code: str, line: int, end_line: int) -> bool:
        for number in {line, end_line}:
            codes = self.by_line.get(number)
            if codes and (ALL in codes or code in codes):
                return True
        return False


def add_noqa(path: str, findings: list) -> int:  # noqa: ANN001
    """Append `# noqa: CODES` to each line with findings; returns the number of lines changed.

    A line is only changed if the file's syntax tree stays the same (the line does not end inside a
    string), and the file is rewritten atomically.
    """
    import ast

    import libcst as cst

    from compilelint.atomic import write_atomic

    with open(path, "rb") as fh:
        data = fh.read()
    encoding = cst.parse_module(data).encoding
    text = data.decode(encoding)
    lines = text.splitlines(keepends=True)
    before = ast.dump(ast.parse(text))
    wanted: dict[int, set[str]] = {}
    for f in findings:
        wanted.setdefault(f.line, set()).add(f.code)
    changed = 0
    for number, codes in sorted(wanted.items()):
        if not 0 < number <= len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        match = _NOQA.search(body)
        if match and match.group("codes"):
            existing = {c.strip() for c in match.group("codes").split(",")}
            merged = ", ".join(sorted(existing | codes))
            candidate = body[:match.start()] + f"# noqa: {merged}" + body[match.end():] + ending
        elif match:
            continue  # a bare noqa already suppresses everything
        else:
            candidate = f"{body}  # noqa: {', '.join(sorted(codes))}{ending}"
        trial = lines[:number - 1] + [candidate] + lines[number:]
        try:
            if ast.dump(ast.parse("".join(trial))) != before:
                continue
        except SyntaxError:
            continue
        lines = trial
        changed += 1
    if changed:
        write_atomic(path, "".join(lines).encode(encoding))
    return changed
