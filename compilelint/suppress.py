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
