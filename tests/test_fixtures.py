"""The paired fixtures (fixtures/models/): each fixed twin computes what its unfixed model computes;
the unfixed model's problems show on real torch in the way its `Expected:` codes claim, the fixed
twin's do not; and the linter reports each fixture's `Expected:` codes on the unfixed class and
nothing on the fixed one.

Torch checks by code family: GB4xx -> a real torch.compile logs graph breaks (or skips the frame), and
every break it logs is one an `Expected:` code names (GB id below); RC5xx -> recompiles over the input
sets; TR3xx -> torch.jit.trace warns or diverges from eager; TS1xx/TA2xx -> torch.jit.script fails;
EX7xx -> torch.export.export (strict=False) fails on a line where an EX finding sits, and the fixed twin exports.
"""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from functools import lru_cache
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from compilelint.config import Config  # noqa: E402
from compilelint.engine import lint  # noqa: E402
from compilelint.rules.registry import all_rules  # noqa: E402
from compilelint.runtime_probe import observe  # noqa: E402
from fixtures.models import PAIRS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "fixtures" / "models"
# Dynamo's own ids for the breaks each GB code claims (torch/_dynamo/graph_break_registry.json, 2.13).
GB_IDS = {"GB401": {"GB0124"}, "GB402": {"GB0109", "GB0033"}, "GB403": {"GB0170"}, "GB404": {"GB0036"},
          "GB405": {"GB0059"}, "GB410": {"GB7000"}}
_EXPECTED = re.compile(r"^\s*Expected:\s*([A-Z]+\d+)\s*$", re.M)


def _module(name: str):
    return importlib.import_module(f"fixtures.models.{name}")


@lru_cache(maxsize=None)
def _classes(name: str) -> dict[str, tuple[int, int, list[str]]]:
    """{"unfixed"/"fixed": (first line, last line, Expected codes)} of the pair's two model classes."""
    tree = ast.parse((MODELS / f"{name}.py").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith(("Unfixed", "Fixed")):
            kind = "unfixed" if node.name.startswith("Unfixed") else "fixed"
            found[kind] = (node.lineno, node.end_lineno, _EXPECTED.findall(ast.get_docstring(node) or ""))
    assert set(found) == {"unfixed", "fixed"}, f"{name}: needs one Unfixed* and one Fixed* class"
    return found


def expected(name: str) -> list[str]:
    return _classes(name)["unfixed"][2]


def test_there_are_at_least_eight_pairs_each_with_findings():
    assert len(PAIRS) >= 8
    assert sorted(PAIRS) == sorted(p.stem for p in MODELS.glob("*.py") if not p.stem.startswith("_"))
    for name in PAIRS:
        assert expected(name), f"{name}: the unfixed class lists no `Expected: CODE` line"
        mod = _module(name)
        assert isinstance(mod.DYNAMIC, (bool, type(None)))
        _, inputs = mod.make_unfixed()
        assert len(inputs) >= 2, f"{name}: needs two or more input sets"


@pytest.mark.parametrize("name", PAIRS)
def test_fixed_twin_computes_the_same_function(name):
    mod = _module(name)
    unfixed, inputs = mod.make_unfixed()
    fixed, inputs_f = mod.make_fixed()
    with torch.no_grad():
        for i, (a, b) in enumerate(zip(inputs, inputs_f)):
            got, want = fixed(*b), unfixed(*a)
            assert observe._same(want, got), f"{name}: outputs differ on input set {i}"


def _dynamo(name: str, which: str) -> observe.DynamoReport:
    mod = _module(name)
    model, inputs = getattr(mod, f"make_{which}")()
    return observe.run_dynamo(model, inputs, dynamic=mod.DYNAMIC)


def _export(name: str, which: str) -> observe.ExportReport:
    """torch.export.export(strict=False, the 2.13 default) of one twin on its first input set; the error's line
    is taken in the fixture file only."""
    mod = _module(name)
    model, inputs = getattr(mod, f"make_{which}")()
    path = MODELS / f"{name}.py"
    return observe.run_export(model, inputs[0], is_user_file=lambda f: Path(f).resolve() == path, strict=False)


def _trace(name: str, which: str) -> tuple[list[str], bool]:
    """(TracerWarnings, diverged): trace one model on the first input set, then compare it with a second,
    eager model from the same factory on every input set. The eager twin first replays the call that
    tracing made, so models with per-call state (a step counter) are compared in step."""
    mod = _module(name)
    factory = getattr(mod, f"make_{which}")
    traced_model, inputs = factory()
    eager_model, _ = factory()
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        traced = torch.jit.trace(traced_model, inputs[0], check_trace=False, strict=False)
    warned = [str(w.message)[:100] for w in caught if issubclass(w.category, torch.jit.TracerWarning)]
    with torch.no_grad():
        eager_model(*inputs[0])
        for args in inputs:
            try:
                same = observe._same(eager_model(*args), traced(*args))
            except Exception:  # a traced graph that cannot run the other input is frozen too
                same = False
            if not same:
                return warned, True
    return warned, False


@pytest.mark.parametrize("name", PAIRS)
def test_unfixed_problems_show_on_torch(name):
    codes = expected(name)
    mod = _module(name)
    if any(c.startswith("GB") for c in codes) or any(c.startswith("RC") for c in codes):
        report = _dynamo(name, "unfixed")
        if any(c.startswith("GB") for c in codes):
            assert report.breaks or report.skipped_frames, f"{name}: no graph break on torch"
            claimed = set().union(*(GB_IDS.get(c, set()) for c in codes))
            for event in report.breaks:
                assert event.gb_id in claimed, f"{name}: break {event.gb_ids} at line {event.lineno} is not claimed"
        if any(c.startswith("RC") for c in codes) and not report.skipped_frames:
            # (a frame Dynamo skips for a graph break runs eagerly and never recompiles: there the
            # break hides the recompile hazard, which shows once the break is fixed)
            assert report.recompiles, f"{name}: no recompile on torch"
    if any(c.startswith("TR") for c in codes):
        warned, diverged = _trace(name, "unfixed")
        assert warned or diverged, f"{name}: torch.jit.trace neither warns nor diverges"
    if any(c.startswith(("TS", "TA")) for c in codes):
        model, _ = mod.make_unfixed()
        assert not observe.run_script(model).ok, f"{name}: torch.jit.script accepted the unfixed model"
    if any(c.startswith("EX") for c in codes):
        report = _export(name, "unfixed")
        assert not report.ok, f"{name}: torch.export.export accepted the unfixed model"
        ex_lines = {line for code, line in _findings_in(name, "unfixed") if code.startswith("EX")}
        assert report.lineno in ex_lines, f"{name}: export failed at line {report.lineno}, no EX finding there " \
                                          f"({sorted(ex_lines)}): {report.error}"


@pytest.mark.parametrize("name", PAIRS)
def test_fixed_twin_compiles_clean_on_torch(name):
    codes = expected(name)
    mod = _module(name)
    report = _dynamo(name, "fixed")
    assert report.error is None, f"{name}: {report.error}"
    assert not report.breaks and report.skipped_frames == 0, \
        f"{name}: fixed twin breaks: {[(b.gb_ids, b.lineno) for b in report.breaks]}"
    assert not report.recompiles, f"{name}: fixed twin recompiles: {report.recompiles[:1]}"
    assert report.graph_count == 1, f"{name}: fixed twin compiled {report.graph_count} graphs"
    if any(c.startswith("TR") for c in codes):
        warned, diverged = _trace(name, "fixed")
        assert not warned and not diverged, f"{name}: fixed twin traces wrong: warnings={warned} diverged={diverged}"
    if any(c.startswith(("TS", "TA")) for c in codes):
        model, inputs = mod.make_fixed()
        script = observe.run_script(model, inputs)
        assert script.ok, f"{name}: fixed twin does not script: {script.error}"
    if any(c.startswith("EX") for c in codes):
        report = _export(name, "fixed")
        assert report.ok, f"{name}: fixed twin does not export: {report.error}"


def test_keypoint_fixed_trace_is_device_independent():
    """The traced fixed keypoint head reads no tensor size as a value: under torch.jit.trace a size used in
    arithmetic (`clamp(max=w - 1)`) becomes a CPU 0-d tensor (prim::NumToTensor), and on CUDA the traced
    graph then mixes devices and fails. The trace matches eager on every input set."""
    mod = _module("keypoint_post")
    model, inputs = mod.make_fixed()
    with torch.no_grad():
        traced = torch.jit.trace(model, inputs[0], check_trace=False)
        sized = [n.kind() for n in traced.inlined_graph.nodes() for i in n.inputs()
                 if i.node().kind() == "prim::NumToTensor"]
        assert sized == [], f"size-derived CPU tensors feed {sorted(set(sized))}"
        for i, (heat,) in enumerate(inputs):
            assert torch.equal(traced(heat), model(heat)), f"input set {i}"


@lru_cache(maxsize=1)
def _lint_fixtures() -> dict[str, list[tuple[str, int]]]:
    result = lint([str(MODELS)], Config(root=str(ROOT)), jobs=1)
    by_file: dict[str, list[tuple[str, int]]] = {}
    for f in result.findings:
        by_file.setdefault(Path(f.path).stem, []).append((f.code, f.line))
    return by_file


def _findings_in(name: str, which: str) -> list[tuple[str, int]]:
    first, last, _ = _classes(name)[which]
    return [(code, line) for code, line in _lint_fixtures().get(name, []) if first <= line <= last]


_RULES = set(all_rules())
LINT_CASES = [
    pytest.param(name, code, id=f"{name}-{code}",
                 marks=() if code in _RULES else pytest.mark.xfail(reason=f"{code} is not a rule yet", strict=False))
    for name in PAIRS for code in expected(name)
]


@pytest.mark.parametrize("name,code", LINT_CASES)
def test_lint_reports_expected_code(name, code):
    codes = {c for c, _ in _findings_in(name, "unfixed")}
    assert code in codes, f"{name}: compilelint does not report {code} on the unfixed model (got {sorted(codes)})"


@pytest.mark.parametrize("name", PAIRS)
def test_lint_reports_only_expected_codes(name):
    unlisted = [(c, line) for c, line in _findings_in(name, "unfixed") if c not in expected(name)]
    assert not unlisted, f"{name}: findings not listed as `Expected:` (false positive, or add the line): {unlisted}"


@pytest.mark.parametrize("name", PAIRS)
def test_fixed_twin_is_lint_clean(name):
    assert _findings_in(name, "fixed") == [], f"{name}: the fixed twin has findings"


def test_local_base_class_module_is_in_scope(tmp_path):
    """`class Head(_Base)` with `_Base(nn.Module)` in the same file: Head.forward is compiled code
    (several fixtures are written this way)."""
    path = tmp_path / "m.py"
    path.write_text("import torch\nfrom torch import nn\nclass _Base(nn.Module):\n    pass\n"
                    "class Head(_Base):\n    def forward(self, x):\n        return x.sum().item()\n")
    result = lint([str(path)], Config(select=["GB401"], root=str(tmp_path)), jobs=1)
    assert [(f.code, f.line) for f in result.findings] == [("GB401", 7)]
