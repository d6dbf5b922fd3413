"""The trace corpus's recorded labels (measured on real torch by benchmarks/corpus_trace.py) against the
TR rules, linter only: no torch, a few seconds. Re-measure the labels with
`PYTHONPATH=$PWD python benchmarks/corpus_trace.py` (it fails if a label disagrees with torch)."""

from __future__ import annotations

import re
from pathlib import Path

from compilelint.config import Config
from compilelint.engine import lint

CORPUS = Path(__file__).parent / "corpus" / "trace"
LABEL = re.compile(r"^# EXPECT: (diverges|stable)\s*$", re.M)


def _labels() -> dict[str, bool]:
    out = {}
    for path in sorted(CORPUS.glob("*.py")):
        text = path.read_text()
        m = LABEL.search(text)
        assert m, f"{path.name}: no '# EXPECT: diverges|stable' label"
        assert "def make(" in text, f"{path.name}: no make() factory"
        out[path.name] = m.group(1) == "diverges"
    return out


def test_corpus_labels_against_linter():
    labels = _labels()
    assert len(labels) >= 40
    assert sum(labels.values()) >= 15 and len(labels) - sum(labels.values()) >= 15
    result = lint([str(CORPUS)], Config(select=["TR"], root=str(CORPUS)), jobs=1)
    flagged = {Path(f.path).name for f in result.findings if f.severity in ("error", "warning")}
    tp = [k for k, v in labels.items() if v and k in flagged]
    fp = [k for k, v in labels.items() if not v and k in flagged]
    fn = [k for k, v in labels.items() if v and k not in flagged]
    precision = len(tp) / max(1, len(tp) + len(fp))
    recall = len(tp) / max(1, len(tp) + len(fn))
    assert precision >= 0.9 and recall >= 0.9, f"precision={precision:.3f} recall={recall:.3f} fp={fp} fn={fn}"
    # Errors ("wrong results for other inputs") are the most precise tier.
    errors = {Path(f.path).name for f in result.findings if f.severity == "error"}
    wrong = [k for k in errors if not labels[k]]
    assert len(errors) - len(wrong) >= 0.95 * len(errors), f"TR errors on modules whose trace is correct: {wrong}"
