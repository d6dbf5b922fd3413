"""GitHub Actions workflow commands: one `::error file=...` annotation per finding."""

from __future__ import annotations

from compilelint.findings import Finding
from compilelint.report.merge import one_per_construct, targets_text

_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding], **_: object) -> str:
    lines = []
    for f in one_per_construct(findings):
        shared = f" ({targets_text(f)})" if f.also else ""
        props = (f"file={_escape_property(f.path)},line={f.line},col={f.col + 1},endLine={f.end_line},"
                 f"endColumn={f.end_col + 1},title={_escape_property('compilelint ' + f.code)}")
        lines.append(f"::{_LEVEL.get(f.severity, 'warning')} {props}::{_escape_data(f.code + ' ' + f.message + shared)}")
    return "\n".join(lines) + ("\n" if lines else "")
