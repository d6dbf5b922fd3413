"""The issue-5 corpus, statically: the linter against the break lines recorded from real compiles.

Each tests/corpus/dynamo/*.py module carries its ground truth as trailing `# BREAK: GBxxxx` comments,
written and re-verified by `benchmarks/corpus_dynamo.py` from real torch.compile graph-break logs.
This test does not compile anything: it lints the corpus with the GB and RC rules and checks precision
on break lines, and recall on the break lines whose GB id some registered rule predicts (so it holds
on a branch that carries only part of the GB family; the benchmark prints the full recall).
"""

from __future__ import annotations

import ast

from benchmarks.corpus_dynamo import CORPUS, corpus_files, lint_corpus, recorded_breaks, score
from compilelint.rules.registry import all_rules

PRECISION_FLOOR = 0.95
COVERED_RECALL_FLOOR = 0.8


def test_corpus_is_large_and_well_formed():
    files = corpus_files()
    assert len(files) >= 60, f"issue 5 asks for at least 60 modules, {CORPUS} has {len(files)}"
    with_breaks = 0
    for p in files:
        tree = ast.parse(p.read_text())
        names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
        assert {"Model", "inputs"} <= names, f"{p.name} needs a no-arg Model and inputs()"
        with_breaks += bool(recorded_breaks(p))
    assert 0 < with_breaks < len(files), "the corpus needs modules with and without graph breaks"


def test_linter_against_recorded_break_lines():
    files = corpus_files()
    truth = {p: recorded_breaks(p) for p in files}
    findings = lint_corpus(files)
    s = score(files, truth, findings)
    assert s["precision"] >= PRECISION_FLOOR, f"false positives on break lines: {s['fp']}"
    rules = all_rules()
    covered = {r.gb_id for r in rules.values() if r.family == "graph-break" and r.gb_id}
    covered |= {f.gb_id for fs in findings.values() for f in fs if f.gb_id}
    relevant = [(name, line, ids) for name, line, ids in s["fn"] if set(ids) & covered]
    hits = [t for t in s["tp"] if set(t[3] or ()) & covered]
    if hits or relevant:
        recall = len(hits) / (len(hits) + len(relevant))
        assert recall >= COVERED_RECALL_FLOOR, f"missed break lines whose GB id a rule predicts: {relevant}"
