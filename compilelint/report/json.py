"""JSON report: `{"tool", "version", "targets", "findings": [...]}`, or with --statistics `{..., "statistics"}`.

Lines and columns are 1-based, as in the text report and SARIF (`col`, `end_col`, and a fix's `start_col` and
`end_col`); `fingerprint` is computed from the file's real path relative to the project root, as SARIF's is, so
it does not change with the working directory or the spelling of the path. One construct that several rules
report for different targets is one finding (compilelint/report/merge.py): `targets` lists every target, `codes`
every code (its own first), and `also` the other rules' findings, each as a finding of its own.
"""

from __future__ import annotations

import json

from compilelint import __version__
from compilelint.findings import Finding
from compilelint.paths import stable_fingerprint
from compilelint.report.merge import one_per_construct


def finding_json(f: Finding, root: str = ".") -> dict:
    d = f.to_dict()
    d["col"], d["end_col"] = f.col + 1, f.end_col + 1
    if d.get("fix"):
        d["fix"]["start_col"], d["fix"]["end_col"] = f.fix.start_col + 1, f.fix.end_col + 1
    d["fingerprint"] = stable_fingerprint(f, root)
    d["codes"] = list(f.codes)
    d["also"] = [finding_json(p, root) for p in f.also]
    return d


def render_json(findings: list[Finding], *, root: str = ".", statistics: bool = False,
                targets: tuple[str, ...] | list[str] = (), **_: object) -> str:
    payload: dict = {"tool": "compilelint", "version": __version__, "targets": list(targets)}
    if statistics:
        from compilelint.report.text import rule_statistics

        payload["statistics"] = rule_statistics(findings)
    else:
        payload["findings"] = [finding_json(f, root) for f in one_per_construct(findings)]
    return json.dumps(payload, indent=2, sort_keys=True) + "\n"
