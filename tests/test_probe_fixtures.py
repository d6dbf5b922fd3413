"""The probe on the paired fixtures (fixtures/models/, CPU): on each unfixed model every static finding on a
line the probe executes is confirmed (or, with the reason as evidence, masked: a check that stops at its
first error or a Dynamo frame skipped whole never reached it, or a trace that diverged with warnings at
other lines cannot be pinned on it); the fixed twin compiles with zero graph
breaks, zero skipped frames and zero recompiles, and scripts / traces cleanly where the unfixed model's
docstring expects TorchScript (TS/TA) / trace (TR) findings.

Probing all 9 pairs costs minutes (18 children, each importing torch and compiling): by default a sample
of PAIRS_SAMPLED pairs runs; COMPILELINT_PROBE_ALL_FIXTURES=1 runs every pair.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.findings import CONFIRMED, NOT_REPRODUCED, UNVERIFIED
from compilelint.runtime_probe.probe import probe

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "fixtures" / "models"
if not (MODELS / "__init__.py").is_file():
    pytest.skip("fixtures/models is not here (yet)", allow_module_level=True)

PAIRS = ast.literal_eval(next(n.value for n in ast.parse((MODELS / "__init__.py").read_text()).body
                              if isinstance(n, ast.Assign) and n.targets[0].id == "PAIRS"))
SAMPLE = ("vision_stem", "yolo_post", "policy_head")  # TorchScript, masked frame + trace, recompiles
PAIRS_SAMPLED = [p for p in PAIRS if os.environ.get("COMPILELINT_PROBE_ALL_FIXTURES") or p in SAMPLE]


def _expected(path: Path) -> set[str]:
    """The codes listed as `Expected: CODE` in the unfixed class's docstring."""
    codes = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ClassDef):
            for line in (ast.get_docstring(node) or "").splitlines():
                if line.strip().startswith("Expected:"):
                    codes.add(line.split(":", 1)[1].strip())
    return codes


@pytest.fixture(scope="module")
def probed():
    targets = [f"fixtures/models/{p}.py:{f}" for p in PAIRS_SAMPLED for f in ("make_unfixed", "make_fixed")]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        yield probe(targets, Config(root=str(ROOT)), timeout=300, jobs=2, base=str(ROOT))
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("pair", PAIRS_SAMPLED)
def test_fixture_pair(probed, pair):
    path = f"fixtures/models/{pair}.py"
    unfixed = next(r for r in probed.runs if r.target == f"{path}:make_unfixed")
    fixed = next(r for r in probed.runs if r.target == f"{path}:make_fixed")
    assert unfixed.status == "ok" and fixed.status == "ok", (unfixed.reason, fixed.reason)

    statics = [f for f in probed.findings if f.path == path and not f.code.startswith("RT")]
    ran = [f for f in statics if f.probe_state in (CONFIRMED, NOT_REPRODUCED, UNVERIFIED)
           and any(unfixed.target in e for e in f.evidence)]
    for f in ran:
        masked = f.probe_state == UNVERIFIED and any(w in e for e in f.evidence
                                                          for w in ("never traced", "stopped at", "never compiled",
                                                                    "not attributable"))
        assert f.probe_state == CONFIRMED or masked, f"{path}:{f.line} {f.code} {f.probe_state}: {f.evidence}"

    d = fixed.checks["dynamo"]
    assert d["breaks"] == [] and d["skipped_frames"] == 0 and d["recompiles"] == [], d
    expected = _expected(ROOT / path)
    if any(c.startswith(("TS", "TA")) for c in expected):
        assert fixed.checks["torchscript"]["ok"], fixed.checks["torchscript"]
    if any(c.startswith("TR") for c in expected):
        t = fixed.checks["trace"]
        assert not t["warnings"] and not t["diverged"] and not t["error"], t
    # nothing the fixed run saw is confirmed or runtime-only, apart from script failures its docstring allows
    allowed = set() if any(c.startswith(("TS", "TA")) for c in expected) else {"RT101"}
    noisy = [f for f in probed.findings if f.path == path and f.code not in allowed
             and any(e.startswith(f"[{fixed.target}]") for e in f.evidence) and f.probe_state in ("confirmed", "runtime-only")]
    assert noisy == [], [(f.code, f.line, f.evidence) for f in noisy]
