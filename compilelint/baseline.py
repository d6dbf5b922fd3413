"""Gradual adoption: record today's findings, report only new ones later.

Findings are keyed by fingerprint (rule, file, enclosing function, text of the line), not by line
number, so moving code around does not resurrect old findings; a count per fingerprint keeps a
second copy of the same problem in the same function visible. The file in a fingerprint is its real
path relative to the project root (compilelint.paths), so a baseline holds whatever the working
directory and however the paths were spelled.
"""

from __future__ import annotations

import json
from collections import Counter

from compilelint import __version__
from compilelint.atomic import write_atomic
from compilelint.findings import Finding
from compilelint.paths import stable_fingerprint


def write_baseline(path: str, findings: list[Finding], root: str = ".") -> None:
    counts = Counter(stable_fingerprint(f, root) for f in findings)
    payload = {"tool": "compilelint", "version": __version__, "fingerprints": dict(sorted(counts.items()))}
    write_atomic(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")


def load_baseline(path: str) -> Counter:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    fingerprints = data.get("fingerprints") if isinstance(data, dict) else None
    if not isinstance(fingerprints, dict):
        raise ValueError(f"{path} is not a compilelint baseline")
    bad = [k for k, v in fingerprints.items() if type(v) is not int or v < 0]
    if bad:
        raise ValueError(f"{path}: the count of fingerprint {bad[0]!r} is not a whole number")
    return Counter(fingerprints)


def new_findings(findings: list[Finding], baseline: Counter, root: str = ".") -> list[Finding]:
    remaining = Counter(baseline)
    out = []
    for f in findings:
        fp = stable_fingerprint(f, root)
        if remaining[fp] > 0:
            remaining[fp] -= 1
        else:
            out.append(f)
    return out
