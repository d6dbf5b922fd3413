from __future__ import annotations

from collections import Counter

from compilelint.findings import UNVERIFIED, Finding


def render_text(findings: list[Finding], *, files: int = 0, show_source: bool = False, statistics: bool = False,
                **_: object) -> str:
    out: list[str] = []
    for f in findings:
        extra = f" [{f.gb_id}]" if f.gb_id else ""
        state = f" ({f.probe_state})" if f.probe_state != UNVERIFIED else ""
        out.append(f"{f.path}:{f.line}:{f.col + 1}: {f.code} {f.message}{extra}{state}")
        if show_source and f.source_line:
            out.append(f"    {f.source_line}")
        for ev in f.evidence:
            out.append(f"    evidence: {ev}")
    if statistics:
        counts = Counter(f.code for f in findings)
        out = [f"{n:6d}  {code}" for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    fixable = sum(1 for f in findings if f.fix is not None)
    if findings:
        tail = f" ({fixable} fixable with --fix)" if fixable else ""
        out.append(f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''} in {files} file{'s' if files != 1 else ''}.{tail}")
    else:
        out.append(f"All checks passed ({files} file{'s' if files != 1 else ''}).")
    return "\n".join(out) + "\n"
