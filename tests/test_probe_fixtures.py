"""The probe on the paired fixtures (fixtures/models/, CPU): on each unfixed model every static finding on a
line the probe executes is confirmed by real torch, either by the whole-module checks or, where those stopped
short (TorchScript at its first error, a Dynamo frame skipped whole after a break in a loop, a trace that
diverged with warnings at other lines), by the isolated re-check of that line (isolate.py). Nothing stays
unverified or not-reproduced unless it is on ALLOWED below, with the reason. The fixed twin compiles with
zero graph breaks, zero skipped frames and zero recompiles, and scripts / traces cleanly where the unfixed
model's docstring expects TorchScript (TS/TA) / trace (TR) findings.

Every pair runs (18 children, each importing torch and compiling: about 80 s with 2 jobs on a 2-core machine);
COMPILELINT_PROBE_SAMPLE=1 runs only the SAMPLE pairs, for a quicker local loop.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.findings import CONFIRMED, NOT_EXERCISED, UNVERIFIED
from compilelint.runtime_probe.probe import probe

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "fixtures" / "models"
if not (MODELS / "__init__.py").is_file():
    pytest.skip("fixtures/models is not here (yet)", allow_module_level=True)

PAIRS = ast.literal_eval(next(n.value for n in ast.parse((MODELS / "__init__.py").read_text()).body
                              if isinstance(n, ast.Assign) and n.targets[0].id == "PAIRS"))
SAMPLE = ("vision_stem", "yolo_post", "policy_head")  # TorchScript, masked frame + trace, recompiles
# (pair, line, code) -> why a finding on an executed line of the unfixed model cannot be confirmed.
ALLOWED: dict[tuple[str, int, str], str] = {}
# Findings the whole-module checks cannot reach and the isolated re-check must (the isolation is the test):
# (pair, line, code, words in the evidence).
ISOLATED = [
    ("vision_stem", 32, "TA201", "torchscript (isolated"),
    ("yolo_post", 56, "GB404", "dynamo (isolated"),
    ("yolo_post", 64, "GB401", "dynamo (isolated"),
    ("yolo_post", 52, "RC507", "recompile (isolated"),
    ("yolo_post", 52, "TR303", "the traced graph unrolled this loop"),
    ("yolo_post", 62, "EX703", "exported again with real-tensor propagation"),
    ("keypoint_post", 47, "GB403", "dynamo (isolated"),
    ("keypoint_post", 38, "RC507", "recompile (isolated"),
    ("keypoint_post", 40, "TR303", "the traced graph unrolled this loop"),
    ("bev_fusion", 34, "TR303", "the traced graph unrolled this loop"),
    ("voxelize", 30, "TS123", "torchscript (isolated: this statement scripted alone"),
    ("keypoint_post", 45, "TS161", "compilelint's fixes applied at line(s) 44,"),
    ("keypoint_post", 46, "TS161", "compilelint's fixes applied at line(s) 44, 45,"),
    ("keypoint_post", 48, "TS161", "compilelint's fixes applied at line(s) 44, 45, 46,"),
]
PAIRS_SAMPLED = [p for p in PAIRS if not os.environ.get("COMPILELINT_PROBE_SAMPLE") or p in SAMPLE]


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
    ran = [f for f in statics if f.probe_state != NOT_EXERCISED and any(
        e.startswith(f"[{unfixed.target}]") and "never ran" not in e for e in f.evidence)]
    assert ran, f"no static finding on a line {unfixed.target} ran"
    for f in ran:
        if (pair, f.line, f.code) in ALLOWED:
            assert f.probe_state == UNVERIFIED, f"{path}:{f.line} {f.code} is {f.probe_state} now: drop it from ALLOWED"
            continue
        assert f.probe_state == CONFIRMED, f"{path}:{f.line} {f.code} {f.probe_state}: {f.evidence}"
    for p, line, code, words in ISOLATED:
        if p == pair:
            found = [f for f in statics if f.line == line and f.code == code]
            assert found, (pair, line, code)
            for f in found:  # one finding per column on the line (`X0 ... VOXEL` are two TS123 findings)
                assert f.probe_state == CONFIRMED and any(words in e for e in f.evidence), (f.probe_state, f.evidence)

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
