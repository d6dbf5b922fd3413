"""What a user sees: which compile targets a run checks (and says so), ruff-like text, JSON, statistics, SARIF for
code scanning (GitHub's own line hash, repository-root URIs, torch's graph-break pages), the HTML report, the
bench chart's axis and the probe's stage progress."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.cli import run
from compilelint.config import Config, ConfigError, default_config, load_config
from compilelint.engine import lint
from compilelint.findings import Finding
from compilelint.report.html import render_html
from compilelint.report.line_hash import line_hashes
from compilelint.report.merge import one_per_construct
from compilelint.report.sarif import GRAPH_BREAK_SITE, render_sarif
from compilelint.rules.registry import all_rules

# A module that is wrong for every compile path: a graph break (GB401), an export failure (EX701), and TorchScript
# (TA201: an unannotated int default) and trace (TR3xx) findings, without any torch.jit call in the file.
MODEL = textwrap.dedent('''
    import torch


    class Head(torch.nn.Module):
        def forward(self, x, k=3):
            if x.sum() > 0:
                x = x * x.max().item()
            return x.topk(k).values
''')
SCRIPTS = "import torch\nfrom head import Head\n\nscripted = torch.jit.script(Head())\n"
TRACES = "import torch\nfrom head import Head\n\n\ndef export_it(x):\n    return torch.jit.trace(Head(), (x,))\n"
IGNORES = textwrap.dedent('''
    import torch


    class Tail(torch.nn.Module):
        @torch.jit.ignore
        def debug(self, x):
            return x

        def forward(self, x):
            return self.debug(x)
''')
SCRIPT_CODES = ("TS", "TA")
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) \[(?P<sev>error|warning|note)\] (?P<msg>.+)$")


def invoke(args: list[str], cwd, monkeypatch, capsys) -> tuple[int, str, str]:  # noqa: ANN001
    """The console script in-process: (exit code, stdout, stderr)."""
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["compilelint", *args])
    with pytest.raises(SystemExit) as exit_info:
        run()
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def tree(tmp_path: Path, **files: str) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "head.py").write_text(MODEL)
    for name, text in files.items():
        (root / f"{name}.py").write_text(text)
    return root


def codes_of(out: str) -> set[str]:
    """Every code reported: a line's own, and the other codes of a result for one construct ("(dynamo, export
    EX701)")."""
    found = set()
    for m in filter(None, map(LINE.match, out.splitlines())):
        found.add(m["code"])
        found.update(re.findall(r"\b(?:dynamo|export|recompile|trace|torchscript) ([A-Z]+\d+)\b",
                                m["msg"].rsplit("(", 1)[-1]))
    return found


# --- targets ---------------------------------------------------------------------------------------------------

def test_auto_checks_dynamo_recompile_and_export_where_the_tree_never_uses_torch_jit(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    code, out, _ = invoke(["--no-cache", "-j1"], root, monkeypatch, capsys)
    assert code == 1
    assert out.splitlines()[0] == ("targets: dynamo, recompile, export (torchscript, trace: not used in this tree; "
                                   "--targets all to add them)")
    found = codes_of(out)
    assert {"GB401", "EX701"} <= found and not any(c.startswith(("TS", "TA", "TR")) for c in found), found
    _, everything, _ = invoke(["--no-cache", "-j1", "--targets", "all"], root, monkeypatch, capsys)
    assert everything.splitlines()[0] == "targets: all (dynamo, recompile, export, torchscript, trace)"
    every = codes_of(everything)
    assert found < every and any(c.startswith(SCRIPT_CODES) for c in every) and any(c.startswith("TR") for c in every)


@pytest.mark.parametrize("name,source,on,off", [
    ("scripts", SCRIPTS, "torchscript", "trace"),
    ("traces", TRACES, "trace", "torchscript"),
    ("ignores", IGNORES, "torchscript", "trace"),
])
def test_auto_adds_torchscript_or_trace_where_the_tree_uses_it(tmp_path, monkeypatch, capsys, name, source, on, off):
    root = tree(tmp_path, **{name: source})
    _, out, _ = invoke(["--no-cache", "-j1"], root, monkeypatch, capsys)
    first = out.splitlines()[0]
    assert first.startswith(f"targets: dynamo, recompile, export, {on} ({on}: "), first
    assert f"in {name}.py" in first and f"{off}: not used in this tree; --targets all to add it)" in first
    found = codes_of(out) - {"TS199"}  # (torch.jit's deprecation: about script and trace alike)
    family = SCRIPT_CODES if on == "torchscript" else ("TR",)
    other = ("TR",) if on == "torchscript" else SCRIPT_CODES
    assert any(c.startswith(family) for c in found) and not any(c.startswith(other) for c in found), found


def test_a_rule_named_in_select_runs_under_auto(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    _, out, _ = invoke(["--no-cache", "-j1", "--select", "TA201"], root, monkeypatch, capsys)
    assert "torchscript: TA201 selected" in out.splitlines()[0] and codes_of(out) == {"TA201"}


def test_targets_setting_in_pyproject_and_on_the_command_line(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    assert load_config(str(root)).targets == ["auto"] and default_config().targets == ["auto"]
    assert Config().targets == ["torchscript", "trace", "dynamo", "export", "recompile"]  # the library default
    for value, expected in (('"auto"', ["auto"]), ('"ALL"', ["all"]), ('["all"]', ["all"]),
                            ('["dynamo", "export"]', ["dynamo", "export"])):
        (root / "pyproject.toml").write_text(f"[tool.compilelint]\ntargets = {value}\n")
        assert load_config(str(root)).targets == expected
    for bad in ('"dynamo"', '["jit"]', "[]", "3"):
        (root / "pyproject.toml").write_text(f"[tool.compilelint]\ntargets = {bad}\n")
        with pytest.raises(ConfigError, match="targets"):
            load_config(str(root))
    (root / "pyproject.toml").write_text('[tool.compilelint]\ntargets = ["dynamo"]\n')
    _, out, _ = invoke(["--no-cache", "-j1"], root, monkeypatch, capsys)
    assert out.splitlines()[0] == "targets: dynamo (from pyproject.toml)"
    assert codes_of(out) and all(c.startswith(("GB", "RC")) for c in codes_of(out))
    _, out, _ = invoke(["--no-cache", "-j1", "--targets", "export,dynamo"], root, monkeypatch, capsys)
    assert out.splitlines()[0] == "targets: dynamo, export (from --targets)"
    code, _, err = invoke(["--no-cache", "--targets", "jit"], root, monkeypatch, capsys)
    assert code == 2 and "unknown target 'jit'" in err


def test_the_scripts_that_score_compilelint_check_every_target():
    """The real-world scorer and the density benchmark read no configuration (--isolated / an installed package):
    under "auto" they would lose TorchScript and trace findings, so the scorer asks for all of them."""
    root = Path(__file__).resolve().parent.parent
    score = (root / "benchmarks" / "realworld" / "score.py").read_text()
    assert re.search(r'"--isolated",[^\]]*"--targets", "all"', score)
    density = (root / "benchmarks" / "density.py").read_text()
    assert '"--targets"' in density  # the default run (what a user sees), and --targets all for the old figures


# --- text, JSON, statistics ------------------------------------------------------------------------------------

def test_text_lines_carry_severity_and_concise_quiet_and_min_severity_filter(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    _, full, _ = invoke(["--no-cache", "-j1", "--show-source"], root, monkeypatch, capsys)
    findings = [m for m in map(LINE.match, full.splitlines()) if m]
    assert findings and all(m["path"] == "head.py" for m in findings)
    assert "    x = x * x.max().item()" in full.splitlines()  # --show-source under full
    assert full.splitlines()[-1].startswith(f"Found {len(findings)} findings in 1 file.")
    _, concise, _ = invoke(["--no-cache", "-j1", "--show-source", "--output-format", "concise"], root, monkeypatch,
                           capsys)
    lines = concise.splitlines()
    assert lines[0].startswith("targets: ") and lines[-1] == full.splitlines()[-1]
    assert [LINE.match(ln)["code"] for ln in lines[1:-1]] == [m["code"] for m in findings]  # one line each
    code, quiet, _ = invoke(["--no-cache", "-j1", "-q", "--output-format", "concise"], root, monkeypatch, capsys)
    assert code == 1 and quiet.splitlines() == lines[1:-1]
    severities = {m["sev"] for m in findings}
    assert len(severities) > 1, severities  # the filter below must have something to drop
    _, errors, _ = invoke(["--no-cache", "-j1", "-q", "--min-severity", "error"], root, monkeypatch, capsys)
    kept = [LINE.match(ln) for ln in errors.splitlines()]
    assert kept and all(m["sev"] == "error" for m in kept)
    assert len(kept) == sum(m["sev"] == "error" for m in findings)
    _, warnings, _ = invoke(["--no-cache", "-j1", "-q", "--min-severity", "warning"], root, monkeypatch, capsys)
    assert len(warnings.splitlines()) == sum(m["sev"] in ("error", "warning") for m in findings)
    (root / "clean.py").write_text("import torch\n\n\nclass C(torch.nn.Module):\n    def forward(self, x):\n"
                                   "        return x.max().item()\n")
    code, _, _ = invoke(["clean.py", "--no-cache", "-j1", "--min-severity", "error"], root, monkeypatch, capsys)
    assert code == 0  # GB401 is a note: nothing at error level is left, so the run passes


def test_json_columns_are_one_based_and_fingerprints_follow_the_real_path(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    (root / "pyproject.toml").write_text("[tool.compilelint]\n")
    _, text, _ = invoke(["head.py", "--no-cache", "-j1", "-q"], root, monkeypatch, capsys)
    _, out, _ = invoke(["head.py", "--no-cache", "-j1", "--output-format", "json"], root, monkeypatch, capsys)
    doc = json.loads(out)
    assert doc["targets"] == ["dynamo", "export", "recompile"]
    assert [(f["line"], f["col"], f["code"]) for f in doc["findings"]] == \
        [(int(m["line"]), int(m["col"]), m["code"]) for m in map(LINE.match, text.splitlines())]
    item = next(f for f in doc["findings"] if f["code"] == "GB401")
    assert MODEL.splitlines()[item["line"] - 1][item["col"] - 1:].startswith("x.max().item()")
    assert item["end_col"] > item["col"]
    _, elsewhere, _ = invoke([str(root / "head.py"), "--no-cache", "-j1", "--output-format", "json"], tmp_path,
                             monkeypatch, capsys)
    _, sarif, _ = invoke(["head.py", "--no-cache", "-j1", "--output-format", "sarif"], root, monkeypatch, capsys)
    sarif_prints = sorted(r["partialFingerprints"]["compilelint/v1"] for r in json.loads(sarif)["runs"][0]["results"])
    assert sorted(f["fingerprint"] for f in doc["findings"]) == sarif_prints
    assert sorted(f["fingerprint"] for f in json.loads(elsewhere)["findings"]) == sarif_prints


def test_statistics_name_count_and_fixable_in_text_and_json(tmp_path, monkeypatch, capsys):
    root = tree(tmp_path)
    _, out, _ = invoke(["--no-cache", "-j1", "--targets", "all", "--output-format", "json"], root, monkeypatch,
                       capsys)
    # statistics count every code: a result for one construct (`codes`) counts for each rule that reported it
    findings = [part for f in json.loads(out)["findings"] for part in (f, *f["also"])]
    _, stats, _ = invoke(["--no-cache", "-j1", "--targets", "all", "--statistics", "--output-format", "json"], root,
                         monkeypatch, capsys)
    rows = json.loads(stats)["statistics"]
    rules = all_rules()
    assert sum(r["count"] for r in rows) == len(findings)
    assert [r["count"] for r in rows] == sorted((r["count"] for r in rows), reverse=True)
    for r in rows:
        mine = [f for f in findings if f["code"] == r["code"]]
        assert r["count"] == len(mine) and r["name"] == rules[r["code"]].name
        assert r["fixable"] == sum(1 for f in mine if f["fix"] and f["fix"]["safe"])
        assert r["unsafe_fixable"] == sum(1 for f in mine if f["fix"] and not f["fix"]["safe"])
    assert any(r["fixable"] or r["unsafe_fixable"] for r in rows)
    _, text, _ = invoke(["--no-cache", "-j1", "--targets", "all", "--statistics", "-q"], root, monkeypatch, capsys)
    parsed = [(n, code.strip(), *rest.split(" ", 1)) if not rest.startswith("[ ]") else (n, code.strip(), "[ ]", rest[4:])
              for n, code, rest in (line.split("\t") for line in text.splitlines())]
    assert [(int(n), code, name) for n, code, _, name in parsed] == [(r["count"], r["code"], r["name"]) for r in rows]
    marks = {code: mark for _, code, mark, _ in parsed}
    assert all(marks[r["code"]] == ("[*]" if r["fixable"] else "[-]" if r["unsafe_fixable"] else "[ ]")
               for r in rows)


# --- SARIF -----------------------------------------------------------------------------------------------------

# github/codeql-action src/fingerprints.test.ts: the values its hash() gives for these inputs.
CODEQL_VECTORS = [
    ("", ["c129715d7a2bc9a3:1"]),
    (" a\nb\n  \t\tc\n d", ["271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1", "a23a3dc5e078b07b:1"]),
    (" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End",
     ["8b7cf3e952e7aeb2:1", "b1ae1287ec4718d9:1", "bff680108adb0fcc:1", "c6805c5e1288b612:1", "b86d3392aea1be30:1",
      "e6ceba753e1a442:1"]),
    *[(text, ["e9496ae3ebfced30:1", "fb7c023a8b9ccb3f:1", "ce8ba1a563dcdaca:1", "e20e36e16fcb0cc8:1",
              "b3edc88f2938467e:1", "c8e28b0b4002a3a0:1", "c129715d7a2bc9a3:1"])
      for text in (" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n", " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
                   " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
                   " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n")],
    ("Lorem ipsum dolor sit amet.\n" * 10,
     [*(f"a7f2ff13bc495cf2:{i}" for i in range(1, 7)), "a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1",
      "55ec222b86bcae53:1", "cc97dc7b1d7d8f7b:1", "c129715d7a2bc9a3:1"]),
]


@pytest.mark.parametrize("text,expected", CODEQL_VECTORS)
def test_line_hash_is_codeql_actions_algorithm(text, expected):
    assert line_hashes(text) == expected


def test_sarif_line_hash_survives_line_moves_and_help_links_go_to_torchs_graph_break_pages(tmp_path):
    path = tmp_path / "head.py"
    path.write_text(MODEL)
    result = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    doc = json.loads(render_sarif(result.findings, root=str(tmp_path), rule_codes=result.rule_codes))
    hashes = line_hashes(MODEL)
    before = {}
    for res in doc["runs"][0]["results"]:
        line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert res["partialFingerprints"]["primaryLocationLineHash"] == hashes[line - 1]
        before[(res["ruleId"], res["message"]["text"])] = res["partialFingerprints"]["primaryLocationLineHash"]
    path.write_text("# a comment\n\n\n" + MODEL)
    moved = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    after = json.loads(render_sarif(moved.findings, root=str(tmp_path)))["runs"][0]["results"]
    assert {(r["ruleId"], r["message"]["text"]): r["partialFingerprints"]["primaryLocationLineHash"]
            for r in after} == before
    torch = pytest.importorskip("torch")
    with open(os.path.join(os.path.dirname(torch.__file__), "_dynamo", "graph_break_registry.json")) as fh:
        registry = json.load(fh)
    links = {r["id"]: r["helpUri"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert links["GB401"] == f"{GRAPH_BREAK_SITE}gb0124.html"
    assert links["EX701"].endswith("/docs/rules/EX701.md")
    for code, rule in all_rules().items():
        if rule.gb_id:
            uri = json.loads(render_sarif([], rule_codes=[code]))["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"]
            assert uri == f"{GRAPH_BREAK_SITE}gb{rule.gb_id[2:]}.html" and rule.gb_id in registry, code


def git(*args: str, cwd) -> None:  # noqa: ANN001
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="needs git")
def test_sarif_from_a_repository_subfolder_has_repository_root_uris(tmp_path, monkeypatch, capsys):
    """A project (its pyproject.toml) in a subfolder of the repository, linted from a folder below it: code
    scanning resolves URIs against the repository's top, so they must be relative to it, not to the project."""
    from tests.test_sarif import validate

    repo = tmp_path / "repo"
    pkg = repo / "services" / "vision" / "src"
    pkg.mkdir(parents=True)
    git("init", "-q", cwd=repo)
    (repo / "services" / "vision" / "pyproject.toml").write_text("[tool.compilelint]\n")
    (pkg / "head.py").write_text(MODEL)
    git("add", "-A", cwd=repo)
    code, out, _ = invoke(["head.py", "--no-cache", "-j1", "--output-format", "sarif"], pkg, monkeypatch, capsys)
    assert code == 1
    doc = json.loads(out)
    validate(doc)
    top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=pkg, capture_output=True, text=True).stdout
    results = doc["runs"][0]["results"]
    assert results
    for res in results:
        where = res["locations"][0]["physicalLocation"]["artifactLocation"]
        assert where == {"uri": "services/vision/src/head.py", "uriBaseId": "%SRCROOT%"}
        assert (Path(top.strip()) / where["uri"]).resolve() == (pkg / "head.py").resolve()
    # compilelint's own fingerprint stays relative to the project, as the baseline's is
    _, again, _ = invoke(["src/head.py", "--no-cache", "-j1", "--output-format", "sarif"], pkg.parent, monkeypatch,
                         capsys)
    assert sorted(r["partialFingerprints"]["compilelint/v1"] for r in json.loads(again)["runs"][0]["results"]) == \
        sorted(r["partialFingerprints"]["compilelint/v1"] for r in results)


# --- HTML ------------------------------------------------------------------------------------------------------

def test_html_report_groups_by_file_and_rule_shows_the_source_and_escapes_everything(tmp_path):
    path = tmp_path / "head.py"
    path.write_text(MODEL)
    other = tmp_path / "tail & <b>.py"
    other.write_text(MODEL)
    result = lint([str(path), str(other)], Config(root=str(tmp_path)), jobs=1)
    hostile = Finding(code="GB401", message="</pre><script>alert(1)</script>", path=str(path), line=8, col=12,
                      end_line=8, end_col=26, severity="note", evidence=["<img src=x onerror=alert(2)>"])
    page = render_html([*result.findings, hostile], files=2, targets_note="targets: <all>")
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page.lower() and "<img" not in page.lower() and "<b>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page and "targets: &lt;all&gt;" in page
    assert "tail &amp; &lt;b&gt;.py" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page.split("</style>")[0])  # self-contained head
    sections = page.split("<section>")[1:]
    assert len(sections) == 2 and str(path) in sections[0]
    first = sections[0]
    codes = re.findall(r"</span> ([A-Z]+\d+) [a-z0-9-]+ \((\d+)\)</summary>", first)
    shown = one_per_construct(result.findings)  # a result for one construct sits under its leading rule
    assert [c for c, _ in codes] == sorted({f.code for f in shown if f.path == str(path)})
    assert dict(codes)["GB401"] == str(1 + sum(f.code == "GB401" and f.path == str(path) for f in result.findings))
    assert "    8 |             x = x * x.max().item()" in first  # the source line, from the file
    doc = all_rules()["GB401"].doc
    assert doc.what.split("`")[0].strip()[:40] in first  # the rule's explanation
    assert f"{GRAPH_BREAK_SITE}gb0124.html" in first


# --- bench chart, probe progress -------------------------------------------------------------------------------

def test_bench_chart_goes_logarithmic_only_where_values_span_more_than_a_decade():
    from compilelint.runtime_probe.bench import _bars_svg

    def widths(svg: str) -> list[float]:
        return [float(w) for w in re.findall(r'<rect [^>]*width="([\d.]+)"', svg)]

    close = _bars_svg("t", [("eager_fixed", "a", 2.0, ""), ("compiled_fixed", "b", 8.0, "")], "ms")
    assert "log scale" not in close and "decade" not in close
    assert widths(close)[0] == pytest.approx(widths(close)[1] / 4, rel=0.01)  # linear from zero
    spread = _bars_svg("t", [("eager_fixed", "a", 0.5, ""), ("compiled_fixed", "b", 5.0, ""),
                             ("compiled_unfixed", "c", 500.0, "")], "ms")
    assert "(log scale)" in spread
    a, b, c = widths(spread)
    assert b - a == pytest.approx((c - b) / 2, rel=0.01)  # equal ratios, equal steps: 10x then 100x
    assert a > 20  # the smallest bar stays visible (on a linear axis it would be 0.1% of the largest)
    assert [t for t in re.findall(r'<text class="tick"[^>]*>([^<]+) ms</text>', spread)] == ["0.1", "1", "10", "100", "1000"]


def test_probe_progress_reads_each_stage_the_child_reports(tmp_path):
    """A stand-in child that rewrites its result file per stage, as the probe's child does: the parent reads
    each stage while the child runs, without blocking on it."""
    from compilelint.runtime_probe.probe import StageWatch, progress_printer
    from compilelint.runtime_probe.runner import run_in_child

    (tmp_path / "fake_child.py").write_text(textwrap.dedent('''
        import json, os, sys, time
        result = sys.argv[sys.argv.index("--result") + 1]
        for stage in ["import torch", "factory", "eager (input set 0)", "dynamo", "torchscript", "trace", "export",
                      "isolate", "done"]:
            with open(result + ".tmp", "w") as fh:
                json.dump({"stage": stage, "status": "running"}, fh)
            os.replace(result + ".tmp", result)
            time.sleep(0.5)
    '''))
    stream = io.StringIO()
    printer = progress_printer(stream, checks=["dynamo", "recompile", "torchscript", "trace", "export"])
    seen: list[str] = []

    def on_stage(stage: str) -> None:
        seen.append(stage)
        printer.stage("m.py:make", stage)

    result = run_in_child("fake_child", [], timeout=60, cwd=str(tmp_path), on_poll=StageWatch(on_stage),
                          env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert result.status == "ok", result.reason
    assert seen[:8] == ["import torch", "factory", "eager (input set 0)", "dynamo", "torchscript", "trace", "export",
                        "isolate"]
    shown = stream.getvalue()
    for name, step in (("import", "1/7"), ("eager", "2/7"), ("dynamo", "3/7"), ("script", "4/7"), ("trace", "5/7"),
                       ("export", "6/7"), ("isolate", "7/7")):
        assert f"m.py:make: {name}" in shown and step in shown.split(f"m.py:make: {name}")[1][:30], name
    watch = StageWatch(lambda stage: (_ for _ in ()).throw(RuntimeError("display failed")))
    watch(str(tmp_path / "missing.json"))  # no file yet: nothing, no error
    (tmp_path / "r.json").write_text('{"stage": "dynamo"')  # torn write
    watch(str(tmp_path / "r.json"))
    (tmp_path / "r.json").write_text('{"stage": "dynamo"}')
    watch(str(tmp_path / "r.json"))  # the display raising does not reach the runner
    assert watch.stage == "dynamo"
