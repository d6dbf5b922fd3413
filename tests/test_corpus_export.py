"""The EX rules against real torch.export on a sample of corpus modules (benchmarks/corpus_export.py scores
the whole corpus: 304 modules).

For each sampled module: torch.export.export(strict=False) fails with a data-dependent error exactly when the
EX rules report something, and then an EX finding sits on the line torch names.
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from benchmarks.corpus_export import ROOT, ground_truth  # noqa: E402
from compilelint.config import Config  # noqa: E402
from compilelint.engine import lint  # noqa: E402

SAMPLE = ("dynamo/adaptive_depth.py", "dynamo/attention_mask_assert.py", "dynamo/conf_gate.py",
          "dynamo/detection_count.py", "dynamo/early_stop_decoder.py", "dynamo/action_chunking.py",
          "dynamo/anchor_matcher.py", "dynamo/capacity_router.py", "dynamo/iou_association.py",
          "dynamo/kalman_filter.py")


@pytest.fixture(scope="module")
def findings() -> dict[Path, set[int]]:
    paths = [ROOT / "tests" / "corpus" / s for s in SAMPLE]
    result = lint([str(p) for p in paths], Config(select=["EX"], root=str(ROOT)), jobs=1)
    out: dict[Path, set[int]] = {p.resolve(): set() for p in paths}
    for f in result.findings:
        out[Path(f.path).resolve()].add(f.line)
    return out


@pytest.mark.parametrize("name", SAMPLE)
def test_ex_findings_match_torch_export(name, findings):
    path = (ROOT / "tests" / "corpus" / name).resolve()
    kind, line, error = ground_truth(path)
    lines = findings[path]
    if kind == "data-dependent":
        assert line in lines, f"{name}: export failed at line {line} ({error}); EX findings at {sorted(lines)}"
    else:
        assert kind == "ok", f"{name}: {error}"
        assert not lines, f"{name}: exports fine, but EX findings at {sorted(lines)}"
