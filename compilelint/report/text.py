"""Text reports, as ruff prints them: `path:line:col: CODE [severity] message`, one finding a line.

`full` (also `text`, the default) adds the probe's evidence under a finding and, with --show-source, its source
line; `concise` is one line per finding and nothing else between them. Both start with the line that says which
compile targets were checked and end with the summary; `quiet` leaves out both.
"""

from __future__ import annotations

import os

from collections import Counter

from compilelint.findings import UNVERIFIED, Finding
from compilelint.report.merge import one_per_construct, parts, targets_text


def finding_line(f: Finding) -> str:
    extra = f" [{f.gb_id}]" if f.gb_id else ""
    # one result for several rules' findings about one construct: each target, and the code of each other part
    shared = f" ({targets_text(f)})" if f.also else ""
    state = f" ({f.probe_state})" if f.probe_state != UNVERIFIED else ""
    return f"{f.path}:{f.line}:{f.col + 1}: {f.code} [{f.severity}] {f.message}{extra}{shared}{state}"


def _rule_name(code: str) -> str:
    from compilelint.rules.registry import ENGINE_DESCRIPTIONS, all_rules

    rule = all_rules().get(code)
    if rule is not None:
        return rule.name
    if code in ENGINE_DESCRIPTIONS:
        return ENGINE_DESCRIPTIONS[code][0]
    from compilelint.runtime_probe.codes import RUNTIME_CODES  # plain data: no torch

    return RUNTIME_CODES.get(code, (code, ""))[0]


def rule_statistics(findings: list[Finding]) -> list[dict]:
    """Per code, most frequent first (as `ruff --statistics`): count, name, and how many findings `--fix`
    fixes (`fixable`) and how many only `--unsafe-fixes` does (`unsafe_fixable`). A result that stands for several
    rules' findings (one construct) counts for each of their codes."""
    findings = [p for f in findings for p in parts(f)]
    counts = Counter(f.code for f in findings)
    safe = Counter(f.code for f in findings if f.fix is not None and f.fix.safe)
    unsafe = Counter(f.code for f in findings if f.fix is not None and not f.fix.safe)
    return [{"code": code, "name": _rule_name(code), "count": n, "fixable": safe[code], "unsafe_fixable": unsafe[code]}
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def _statistics_lines(findings: list[Finding]) -> list[str]:
    rows = rule_statistics(findings)
    width = max((len(r["code"]) for r in rows), default=0)
    # [*]: --fix fixes some; [-]: only --unsafe-fixes does; [ ]: no fix
    return [f"{r['count']:>6}\t{r['code']:<{width}}\t"
            f"{'[*]' if r['fixable'] else '[-]' if r['unsafe_fixable'] else '[ ]'} {r['name']}" for r in rows]


def summary_line(findings: list[Finding], files: int) -> str:
    if not findings:
        return f"All checks passed ({files} file{'s' if files != 1 else ''})."
    fixes_of = [[p.fix for p in parts(f) if p.fix is not None] for f in findings]
    safe = sum(1 for fixes in fixes_of if any(x.safe for x in fixes))
    unsafe = sum(1 for fixes in fixes_of if fixes and not any(x.safe for x in fixes))
    fixes = []
    if safe:
        fixes.append(f"{safe} fixable with --fix")
    if unsafe:
        fixes.append(f"{unsafe} {'more ' if safe else ''}fixable with --fix --unsafe-fixes")
    tail = f" ({'; '.join(fixes)})" if fixes else ""
    return (f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} in {files} "
            f"file{'s' if files != 1 else ''}.{tail}")


def _relative(path: str) -> str:
    """A path under the working directory as the findings' own paths read (relative); others as they are."""
    if not os.path.isabs(path):
        return path
    rel = os.path.relpath(path)
    return path if rel.startswith(os.pardir) else rel


def render_text(findings: list[Finding], *, files: int = 0, show_source: bool = False, statistics: bool = False,
                quiet: bool = False, concise: bool = False, targets_note: str = "", explain_scope: bool = False,
                **_: object) -> str:
    out: list[str] = [targets_note] if targets_note and not quiet else []
    shown = one_per_construct(findings)
    if statistics:
        out += _statistics_lines(findings)
    else:
        for f in shown:
            out.append(finding_line(f))
            if concise:
                continue
            if show_source and f.source_line:
                out.append(f"    {f.source_line}")
            for ev in f.evidence:
                out.append(f"    evidence: {ev}")
            if explain_scope and f.reached_from:
                out.append("    reached from " + " -> ".join(
                    f"{r.message.removeprefix('entry point: ').removeprefix('calls ')} ({_relative(r.path) if r.path else f.path}:{r.line})"
                    for r in f.reached_from) + f" -> {f.context or '?'}")
    if not quiet:
        out.append(summary_line(shown, files))
    return "\n".join(out) + ("\n" if out else "")


def render_concise(findings: list[Finding], **kwargs: object) -> str:
    return render_text(findings, **{**kwargs, "concise": True})
