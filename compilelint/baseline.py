"""Gradual adoption: record today's findings, report only new ones later.

Findings are keyed by fingerprint (rule, file, enclosing function, text of the line), not by line
number, so moving code around does not resurrect old findings; a count per fingerprint keeps a
second copy of the same problem in the same function visible.
"""

from __future__ import annotations

import json
from collections import Counter

from compilelint import __version__
from compilelint.atomic import write_atomic
from compilelint.findings import Finding


def write_baseline(path: str, findings: list[Finding]) -> None:
    counts = Counter(f.fingerprint() for f in findings)
    payload = {"tool": "compilelint", "version": __version__, "fingerprints": dict(sorted(counts.items()))}
    write_atomic(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")


def load_baseline(path: str) -> Counter:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    fingerprints = data.get("fingerprints") if isinstance(data, dict) else None
    if not isinstance(fingerprints, dict):
        raise ValueError(f"{path} is not a compilelint baseline")
    return Counter({str(k): int(v) for k, v in fingerprints.items()})


def new_findings(findings: list[Finding], baseline: Counter) -> list[Finding]:
    remaining = Counter(baseline)
    out = []
    for f in findings:
        fp = f.fingerprint()
        if remaining[fp] > 0:
            remaining[fp] -= 1
        else:
            out.append(f)
    return out
