"""The EX rules against real torch.export on a sample of corpus modules (benchmarks/corpus_export.py scores
the whole corpus: 304 modules).

For each sampled module: torch.export.export(strict=False) fails exactly when the EX rules report something,
with an error that one of the reporting rules claims (its `torch_error`), and a finding of such a rule sits on
the line torch names (where torch names one: errors about the traced program as a whole name none).
"""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from benchmarks.corpus_export import ROOT, claims, ground_truth  # noqa: E402
from compilelint.config import Config  # noqa: E402
from compilelint.engine import lint  # noqa: E402

SAMPLE = ("dynamo/adaptive_depth.py", "dynamo/attention_mask_assert.py", "dynamo/conf_gate.py",
          "dynamo/detection_count.py", "dynamo/early_stop_decoder.py", "dynamo/action_chunking.py",
          "dynamo/anchor_matcher.py", "dynamo/capacity_router.py", "dynamo/iou_association.py",
          "dynamo/kalman_filter.py", "dynamo/attention_entropy_numpy.py", "dynamo/cross_attention_snapshot.py",
          "torchscript/det_box_coder_numpy.py", "torchscript/det_postproc_dataclass.py", "dynamo/gradient_penalty.py",
          "dynamo/observation_encoder.py", "trace/det_builtin_max.py")


@pytest.fixture(scope="module")
def findings() -> dict[Path, set[tuple[int, str]]]:
    paths = [ROOT / "tests" / "corpus" / s for s in SAMPLE]
    result = lint([str(p) for p in paths], Config(select=["EX"], root=str(ROOT)), jobs=1)
    out: dict[Path, set[tuple[int, str]]] = {p.resolve(): set() for p in paths}
    for f in result.findings:
        out[Path(f.path).resolve()].add((f.line, f.code))
    return out


@pytest.mark.parametrize("name", SAMPLE)
def test_ex_findings_match_torch_export(name, findings):
    path = (ROOT / "tests" / "corpus" / name).resolve()
    kind, line, error, codes = ground_truth(path, claims())
    found = findings[path]
    if kind == "fail":
        assert codes, f"{name}: export failed with an error no EX rule claims: {error}"
        # an error that names no line (line None) is matched by the claiming rule alone
        assert any((ln == line or line is None) and code in codes for ln, code in found), \
            f"{name}: export failed at line {line} ({error}); EX findings {sorted(found)}"
    else:
        assert kind == "ok", f"{name}: {error}"
        assert not found, f"{name}: exports fine, but EX findings {sorted(found)}"
