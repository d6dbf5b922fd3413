"""The static engine end to end: CLI, exit codes, parse errors, scope, nothing executed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.engine import lint

BAD_MODULE = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            return x * x.max().item()
''')


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compilelint", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_exit_codes_and_text_format(tmp_path):
    (tmp_path / "bad.py").write_text(BAD_MODULE)
    (tmp_path / "clean.py").write_text("x = 1\n")
    proc = run_cli(str(tmp_path / "bad.py"))
    assert proc.returncode == 1
    assert f"{tmp_path / 'bad.py'}:5:20: GB401 " in proc.stdout
    assert run_cli(str(tmp_path / "clean.py")).returncode == 0
    assert run_cli(str(tmp_path / "bad.py"), "--exit-zero").returncode == 0
    usage = run_cli(str(tmp_path), "--output-format", "nope")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
    missing = run_cli(str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_parse_error_is_a_finding_and_other_files_still_checked(tmp_path):
    (tmp_path / "a_broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "b_bad.py").write_text(BAD_MODULE)
    proc = run_cli(str(tmp_path), "--output-format", "json")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    codes = {(Path(f["path"]).name, f["code"]) for f in json.loads(proc.stdout)["findings"]}
    assert ("a_broken.py", "E001") in codes
    assert ("b_bad.py", "GB401") in codes


def test_static_mode_executes_nothing_and_never_imports_torch(tmp_path):
    marker = tmp_path / "MARKER"
    (tmp_path / "evil.py").write_text(textwrap.dedent(f'''
        import os, sys
        open({str(marker)!r}, "w").write("ran")
        sys.exit(3)
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return x.item()
    '''))
    code = textwrap.dedent(f'''
        import sys
        from compilelint.config import Config
        from compilelint.engine import lint
        result = lint([{str(tmp_path)!r}], Config(), jobs=2)
        assert any(f.code == "GB401" for f in result.findings), result.findings
        assert "torch" not in sys.modules, "static mode imported torch"
        print("ok")
    ''')
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr
    assert not marker.exists()


def test_scope_training_loop_and_ignored_methods_are_not_reported(tmp_path):
    (tmp_path / "m.py").write_text(textwrap.dedent('''
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                return self.helper(x)
            def helper(self, x):
                return x * x.sum().item()
            @torch.jit.ignore
            def debug(self, x):
                f = lambda t: t
                return f(x)
        def train(model, x):
            loss = model(x).sum().item()
            g = lambda t: t
            return loss
    '''))
    result = lint([str(tmp_path)], Config(), jobs=1)
    got = {(f.code, f.line) for f in result.findings}
    assert ("GB401", 7) in got  # helper reached from forward
    assert ("TS101", 10) not in got  # @torch.jit.ignore body is not scripted
    assert all(f.line < 12 for f in result.findings), got  # nothing in the training loop


def test_cross_file_module_base_and_helper(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .base import Base\n")
    (pkg / "base.py").write_text("import torch.nn as nn\nclass Base(nn.Module):\n    pass\n")
    (pkg / "util.py").write_text("def scale(x):\n    return x / x.max().item()\n")
    (pkg / "head.py").write_text(textwrap.dedent('''
        from pkg import Base
        from pkg.util import scale
        class Head(Base):
            def forward(self, x):
                return scale(x)
    '''))
    result = lint([str(tmp_path)], Config(select=["GB401"]), jobs=2)
    assert [(Path(f.path).name, f.code, f.line) for f in result.findings] == [("util.py", "GB401", 2)]


HELPER = "def scale(x):\n    return x / x.max().item()\n"
CALLER = textwrap.dedent('''
    import torch
    from helper import scale
    class Head(torch.nn.Module):
        def forward(self, x):
            return scale(x)
''')


@pytest.mark.parametrize("marker", ["git", "pyproject"])
def test_a_file_given_alone_is_checked_against_its_project(tmp_path, marker):
    if marker == "git":
        (tmp_path / ".git").mkdir()
    else:
        (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "model.py").write_text(CALLER)
    (tmp_path / "unused.py").write_text(HELPER)  # a copy no forward calls
    alone = run_cli("check", "--no-cache", "--output-format", "concise", "helper.py", cwd=tmp_path)
    assert alone.returncode == 1, alone.stdout + alone.stderr
    assert "helper.py:2:" in alone.stdout and "GB401" in alone.stdout
    assert "model.py" not in alone.stdout  # read for scope, reported only where asked
    unused = run_cli("check", "--no-cache", "--output-format", "concise", "unused.py", cwd=tmp_path)
    assert unused.returncode == 0, unused.stdout + unused.stderr


def test_a_file_outside_any_project_is_checked_alone(tmp_path):
    (tmp_path / "helper.py").write_text(HELPER)
    (tmp_path / "model.py").write_text(CALLER)
    alone = run_cli("check", "--no-cache", "--isolated", "--output-format", "concise", "helper.py", cwd=tmp_path)
    assert alone.returncode == 0, alone.stdout + alone.stderr


def test_jobs_do_not_change_results(tmp_path):
    for i in range(6):
        (tmp_path / f"m{i}.py").write_text(BAD_MODULE)
    one = lint([str(tmp_path)], Config(), jobs=1).findings
    many = lint([str(tmp_path)], Config(), jobs=3).findings
    assert [f.to_dict() for f in one] == [f.to_dict() for f in many]
    assert len([f for f in one if f.code == "GB401"]) == 6


@pytest.mark.parametrize("comment", ["# noqa: GB401", "# noqa", "# compilelint: ignore[GB401]"])
def test_suppressions(tmp_path, comment):
    (tmp_path / "m.py").write_text(BAD_MODULE.replace(".item()", f".item()  {comment}"))
    assert lint([str(tmp_path)], Config(select=["GB401"]), jobs=1).findings == []


def test_skip_file_and_config_targets(tmp_path):
    (tmp_path / "m.py").write_text(BAD_MODULE + "\n# compilelint: skip-file\n")
    assert lint([str(tmp_path)], Config(), jobs=1).findings == []
    (tmp_path / "m.py").write_text(BAD_MODULE)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\ntargets = ["torchscript"]\n')
    proc = run_cli(str(tmp_path / "m.py"))
    assert proc.returncode == 0, proc.stdout  # the GB rule is for dynamo, which this team turned off
    proc = run_cli(str(tmp_path / "m.py"), "--target", "dynamo")
    assert proc.returncode == 1


EXPORT_MODULE = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            keep = x[x > 0]
            if keep.numel() == 0:
                return x
            return helper(x)
    def helper(x):
        return x * int(x.argmax())
    def unused(x):
        return x * int(x.argmax())
    ep = torch.export.export(Head(), (torch.randn(3),))
''')


def test_export_target_selects_ex_rules(tmp_path):
    """`--target export` / `targets = ["export"]` keep the EX rules (and only rules that target export); what
    a module's forward calls is in scope for export, a function nothing compiles is not."""
    (tmp_path / "m.py").write_text(EXPORT_MODULE)
    only_export = lint([str(tmp_path)], Config(targets=["export"], root=str(tmp_path)), jobs=1).findings
    assert sorted((f.code, f.line) for f in only_export) == [("EX702", 6), ("EX703", 10)]
    assert all("export" in f.targets for f in only_export)
    no_export = lint([str(tmp_path)], Config(targets=["dynamo"], root=str(tmp_path)), jobs=1).findings
    assert not [f for f in no_export if f.code.startswith("EX")]
    proc = run_cli(str(tmp_path / "m.py"), "--target", "export", "--select", "EX703")
    assert proc.returncode == 1 and "EX703" in proc.stdout and ":10:" in proc.stdout


def test_selector_prefix_names_one_family(tmp_path):
    """A prefix selects within one family, as in ruff: "E" is the engine's E00x and does not take in the
    export rules EX7xx; "EX" and "EX7" do. A selector that matches nothing is a usage error, not a silent
    empty run."""
    from compilelint.rules.registry import all_rules, select_codes

    codes = list(all_rules())
    assert not select_codes(codes, ["E"])
    assert select_codes(codes, ["EX"]) == select_codes(codes, ["EX7"]) == {c for c in codes if c.startswith("EX")}
    assert select_codes(codes, ["EX71"]) == {c for c in codes if c.startswith("EX71")} == {"EX710", "EX711", "EX712", "EX713", "EX714", "EX715", "EX716", "EX717", "EX718", "EX719"}
    assert select_codes(codes, ["GB4"]) == {c for c in codes if c.startswith("GB")}
    (tmp_path / "m.py").write_text(EXPORT_MODULE)
    proc = run_cli(str(tmp_path / "m.py"), "--target", "export", "--ignore", "E")
    assert proc.returncode == 1 and "EX703" in proc.stdout, proc.stdout
    proc = run_cli(str(tmp_path / "m.py"), "--select", "EX9,TS101")
    assert proc.returncode == 2 and "unknown rule selector 'EX9'" in proc.stderr, proc.stderr


def test_isolated_reads_no_config(tmp_path):
    """`--isolated` (as in ruff) ignores pyproject.toml: a folder its `exclude` hides is linted."""
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nexclude = ["vendored"]\nignore = ["GB"]\n')
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "bad.py").write_text(BAD_MODULE)
    proc = run_cli(str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0 and "All checks passed (0 files)" in proc.stdout, proc.stdout
    proc = run_cli(str(tmp_path), "--isolated", cwd=tmp_path)
    assert proc.returncode == 1 and "GB401" in proc.stdout and "in 1 file" in proc.stdout, proc.stdout
    proc = run_cli(str(tmp_path), "--isolated", "--config", str(tmp_path / "pyproject.toml"), cwd=tmp_path)
    assert proc.returncode == 2 and "contradict" in proc.stderr


def test_call_gates_change_no_finding(tmp_path, monkeypatch):
    """The analyzer folds the visit_Call of rules with a `call_gate` into one lookup per call
    (analyzer._GatedCalls), and leaves a rule with a `file_gate` out of files that lack its names. Run with
    every handler on every call and every rule on every file instead, the findings of every rule on the
    corpora, the fixtures and every rule's bad and good examples are the same, position for position."""
    from compilelint import analyzer
    from compilelint.rules.registry import all_rules

    root = Path(__file__).resolve().parents[1]
    examples = tmp_path / "examples"
    examples.mkdir()
    rules = all_rules()
    assert sum(cls.call_gate is not None for cls in rules.values()) >= 60
    assert sum(cls.file_gate is not None for cls in rules.values()) >= 5
    for cls in rules.values():
        for i, example in enumerate(cls.bad + cls.good):
            (examples / f"{cls.code.lower()}_{i}.py").write_text(example.code)
    trees = [(str(root), [str(root / sub) for sub in ("tests/corpus", "fixtures/models", "benchmarks/gb_heldout",
                                                      "benchmarks/ts_corpus")]),
             (str(examples), [str(examples)])]

    def run() -> list[tuple]:
        out = []
        for tree_root, paths in trees:
            result = lint(paths, Config(select=["ALL"], root=tree_root, exclude=[]), jobs=1)
            out += sorted((f.path, f.line, f.col, f.code, f.message) for f in result.findings)
        return out

    gated = run()
    analyzer._DISPATCH_CACHE.clear()
    monkeypatch.setattr(analyzer, "_gate_calls", lambda handlers: handlers)
    monkeypatch.setattr(analyzer, "_rules_for", lambda rules, source: rules)
    every_call = run()
    analyzer._DISPATCH_CACHE.clear()
    assert len({code for _, _, _, code, _ in gated}) > 100  # most rules fire somewhere in this set
    assert gated == every_call


OFF_FLAG = '''import numpy as np
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.debug = False
        self.proj = torch.nn.Linear(4, 4)

    def dump(self, x):
        stats = float(np.abs(x.detach().numpy()).mean())
        print("mean", stats)

    def forward(self, x):
        y = self.proj(x)
        if self.debug:
            self.dump(y)
            print(f"{y.norm():.3f}")
        return y
'''


@pytest.mark.parametrize("switchable", [False, True])
def test_switched_off_flag_branch(tmp_path, switchable):
    """`if self.debug:` with `self.debug = False` in __init__ and nothing else setting it: torch.compile and
    torch.export (checked here on real torch) never run the branch, so GB/EX report nothing in it or in the
    method it calls; TorchScript compiles both sides, so its findings there stay. With a method that sets
    the flag (`switchable`), the branch counts as reachable again."""
    from compilelint.runtime_probe import observe
    from tests.harness import Example, load_entry

    code = OFF_FLAG + ("\n    def set_debug(self, on):\n        self.debug = on\n" if switchable else "")
    path = tmp_path / f"off_flag_{switchable}.py"
    path.write_text(code)
    result = lint([str(path)], Config(select=["GB", "EX", "TS"], root=str(tmp_path)), jobs=1)
    families = {f.code[:2] for f in result.findings}
    assert "TS" in families  # TorchScript: `.numpy()` in dump, print keywords, ... both branches compile
    if switchable:
        assert {"GB", "EX"} <= families
        return
    assert not families & {"GB", "EX"}, sorted((f.line, f.code) for f in result.findings)
    model, inputs = load_entry(path, Example(code, inputs="[(torch.randn(2, 4),)]"))
    assert observe.run_export(model, inputs[0], strict=False).ok
    report = observe.run_dynamo(model, inputs)
    assert not report.breaks and not report.skipped_frames and report.error is None


@pytest.mark.parametrize("extra,off", [
    ("", True),
    ("    def on(self):\n        if self.x:\n            pass\n        else:\n            self.debug = True\n", False),
    ("    def on(self):\n        try:\n            pass\n        finally:\n            self.debug, self.x = True, 1\n", False),
    ("    def on(self, name, value):\n        setattr(self, name, value)\n", False),
    ("    def on(self):\n        setattr(self, 'x', 1)\n", True),
    ("class Sub(M):\n    def on(self):\n        self.debug = True\n", False),
])
def test_off_flags_need_a_single_false_assignment(extra, off):
    """ClassFacts.off_flags: `self.debug = False` in __init__ and no other statement of the file assigning
    `self.debug` (nested blocks, tuple targets, setattr with a computed name, a subclass that switches it on:
    the base's `if self.debug:` then runs for the subclass)."""
    import libcst as cst

    from compilelint.analysis.tensors import ClassFacts, self_attr_assignments

    code = "class M:\n    def __init__(self):\n        self.debug = False\n        self.x = 0\n"
    code += extra if not extra.startswith("class") else "\n" + extra
    module = cst.parse_module(code)
    base = ClassFacts.from_class(module.body[0], {})
    base.settle_off_flags(self_attr_assignments(module))
    assert ("debug" in base.off_flags) is off


def test_trace_rules_skip_branches_the_tracer_never_runs(tmp_path):
    """`if not torch.jit.is_tracing():` and a switched-off flag: torch.jit.trace (checked on real torch: no
    TracerWarning, same results on other inputs) never records them, so TR rules report nothing there; the
    same code outside such a branch is reported."""
    from compilelint.runtime_probe import observe
    from tests.harness import Example, load_entry

    code = '''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.debug = False
        self.last_max = 0.0

    def forward(self, x):
        if not torch.jit.is_tracing():
            self.last_max = float(x.abs().max())
        if self.debug:
            print(int(x.sum()))
        return x * 2
'''
    path = tmp_path / "traced.py"
    path.write_text(code)
    assert not lint([str(path)], Config(select=["TR"], root=str(tmp_path)), jobs=1).findings
    model, inputs = load_entry(path, Example(code, inputs="[(torch.randn(3, 4),), (torch.randn(5, 4),)]"))
    report = observe.run_trace(model, inputs)
    assert not report.warnings and not report.frozen and report.error is None, report
    live = tmp_path / "live.py"
    live.write_text(code.replace("if not torch.jit.is_tracing():", "if True:"))
    assert {f.code for f in lint([str(live)], Config(select=["TR"], root=str(tmp_path)), jobs=1).findings}


def test_a_rule_for_older_python_is_off_on_a_newer_one():
    """RC522's claim (a comprehension's length guarded in the resume frame) holds up to Python 3.11: 3.12
    inlines comprehensions, and Dynamo then runs the whole function eagerly."""
    from compilelint.engine import applies_to_python
    from compilelint.rules.registry import all_rules

    rule = all_rules()["RC522"]
    assert rule.max_python == "3.11"
    assert applies_to_python(rule, (3, 11)) and not applies_to_python(rule, (3, 12))
    assert all(applies_to_python(r, (3, 14)) for r in all_rules().values() if not r.max_python)
