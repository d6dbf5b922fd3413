"""One result per construct: where one construct fails under several compilers (`if x.sum() > 0:` breaks
Dynamo's graph, stops torch.export and is frozen by torch.jit.trace), the findings of the rules for each target
are shown as one result with all their targets.

Findings are one result when their rules name the same construct (`Rule.construct`,
compilelint/semantic/constructs.py), they sit on the same node (path and span) with the same probe state, and
their targets differ. The result is the finding of the first target in `TARGET_ORDER` (its code, message,
fingerprint and fix), with `targets` covering every part, the highest severity among them, the evidence of all,
and the others in `also` (each with its own message, severity and fix). Everything decided per code happens before, on the findings as the rules report them: noqa comments,
select/ignore and per-file-ignores, the baseline, --min-severity, --fix; `--statistics` counts every code, and the
probe judges every part for its own targets.
"""

from __future__ import annotations

import dataclasses

from compilelint.findings import SEVERITIES, TARGETS, Finding

# Which part leads a result: the compile path most projects use first.
TARGET_ORDER = ("dynamo", "export", "recompile", "trace", "torchscript")
_RANK = {t: i for i, t in enumerate(TARGET_ORDER)}
_SEVERITY = {s: i for i, s in enumerate(SEVERITIES)}  # error 0: the highest
assert set(TARGET_ORDER) == set(TARGETS)


def _construct_of(code: str) -> str | None:
    from compilelint.rules.registry import all_rules

    rule = all_rules().get(code)
    return None if rule is None else rule.construct


def _lead(f: Finding) -> tuple:
    return (min((_RANK.get(t, len(_RANK)) for t in f.targets), default=len(_RANK)), f.code, f.message)


def one_per_construct(findings: list[Finding]) -> list[Finding]:
    """The findings to show: one result per construct and node (see the module's docstring), sorted as findings
    are. The findings given are left as they are."""
    groups: dict[tuple, list[Finding]] = {}
    out: list[Finding] = []
    for f in findings:
        construct = _construct_of(f.code) if f.targets and not f.also else None
        if construct is None:
            out.append(f)
            continue
        groups.setdefault((f.path, f.line, f.col, f.end_line, f.end_col, construct, f.probe_state), []).append(f)
    for parts in groups.values():
        results: list[list[Finding]] = []
        for part in sorted(parts, key=_lead):
            home = next((r for r in results if not any(set(part.targets) & set(q.targets) for q in r)), None)
            if home is None:
                results.append([part])
            else:
                home.append(part)
        out.extend(_result(r) for r in results)
    out.sort(key=Finding.sort_key)
    return out


def _result(parts: list[Finding]) -> Finding:
    if len(parts) == 1:
        return parts[0]
    lead, others = parts[0], parts[1:]
    targets = sorted({t for p in parts for t in p.targets}, key=lambda t: _RANK.get(t, len(_RANK)))
    evidence = list(dict.fromkeys(e for p in parts for e in p.evidence))
    return dataclasses.replace(
        lead, targets=tuple(targets), severity=min((p.severity for p in parts), key=lambda s: _SEVERITY.get(s, 1)),
        evidence=evidence, also=list(others))


def parts(f: Finding) -> list[Finding]:
    """The findings a result stands for, one per rule (the result's own first, with the result's severity)."""
    own = dataclasses.replace(f, targets=tuple(t for t in f.targets if not any(t in p.targets for p in f.also)),
                              also=[]) if f.also else f
    return [own, *f.also]


def targets_text(f: Finding) -> str:
    """A result's targets, each other part's with its code: "dynamo, export EX701, trace TR301"."""
    pairs = sorted(((t, p.code) for p in parts(f) for t in p.targets), key=lambda tc: _RANK.get(tc[0], len(_RANK)))
    return ", ".join(t if code == f.code else f"{t} {code}" for t, code in pairs)
