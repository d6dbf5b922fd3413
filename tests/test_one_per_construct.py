"""One result per construct: where one construct fails under several compilers, the rules' findings for each
target are reported as one result with all the targets (compilelint/report/merge.py), in every output format;
noqa, select/ignore, the baseline and --statistics still work per code."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.cli import run
from compilelint.rules.registry import all_rules
from compilelint.semantic.constructs import Construct

# `if x.sum() > 0:` reads tensor data: a graph break (GB403), an export failure (EX701), a frozen trace (TR301).
# `x.max().item()` on the next line is another construct (GB401, TR302), and `[...]` one more on the same line.
MODEL = textwrap.dedent('''
    import torch


    class Head(torch.nn.Module):
        def forward(self, x):
            if x.sum() > 0:{noqa}
                x = x * 2
            return x


    def traced(x):
        return torch.jit.trace(Head(), (x,))
''')
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) \[(?P<sev>error|warning|note)\] "
                  r"(?P<msg>.+)$")
BRANCH_LINE = 7


def invoke(args: list[str], cwd: Path, monkeypatch, capsys) -> tuple[int, str]:  # noqa: ANN001
    monkeypatch.chdir(cwd)
    monkeypatch.setattr(sys, "argv", ["compilelint", "--no-cache", "-j1", "--isolated", *args])
    with pytest.raises(SystemExit) as exit_info:
        run()
    return exit_info.value.code, capsys.readouterr().out


def project(tmp_path: Path, noqa: str = "", extra: str = "") -> Path:
    root = tmp_path / "proj"
    root.mkdir(parents=True)
    (root / "head.py").write_text(MODEL.format(noqa=f"  # noqa: {noqa}" if noqa else "") + extra)
    return root


def on_branch(out: str) -> list[re.Match]:
    return [m for m in map(LINE.match, out.splitlines()) if m and int(m["line"]) == BRANCH_LINE]


def test_the_rules_of_one_construct_name_it_in_their_own_files():
    rules = all_rules()
    for code in ("GB403", "EX701", "TR301"):
        assert rules[code].construct is Construct.DATA_DEPENDENT_VALUE
    assert rules["GB410"].construct is None  # a consequence (the frame skipped whole), not the construct


def test_one_construct_on_three_targets_is_one_result_in_text_json_and_sarif(tmp_path, monkeypatch, capsys):
    from tests.test_sarif import validate

    root = project(tmp_path)
    _, text = invoke(["-q"], root, monkeypatch, capsys)
    [line] = on_branch(text)
    assert line["code"] == "GB403" and line["sev"] == "error"  # dynamo leads; EX701 and TR301 are errors
    assert line["msg"].endswith("(dynamo, export EX701, trace TR301)")

    _, out = invoke(["--output-format", "json"], root, monkeypatch, capsys)
    [item] = [f for f in json.loads(out)["findings"] if f["line"] == BRANCH_LINE]
    assert item["code"] == "GB403" and item["targets"] == ["dynamo", "export", "trace"]
    assert item["codes"] == ["GB403", "EX701", "TR301"]
    assert [(p["code"], p["targets"], p["col"]) for p in item["also"]] == [("EX701", ["export"], item["col"]),
                                                                            ("TR301", ["trace"], item["col"])]
    assert len({item["fingerprint"], *(p["fingerprint"] for p in item["also"])}) == 3

    _, sarif = invoke(["--output-format", "sarif"], root, monkeypatch, capsys)
    doc = json.loads(sarif)
    validate(doc)
    [result] = [r for r in doc["runs"][0]["results"]
                if r["locations"][0]["physicalLocation"]["region"]["startLine"] == BRANCH_LINE]
    props = result["properties"]
    assert result["ruleId"] == "GB403" and result["level"] == "error"
    assert props["targets"] == ["dynamo", "export", "trace"] and props["codes"] == ["GB403", "EX701", "TR301"]
    assert [(p["ruleId"], p["targets"]) for p in props["also"]] == [("EX701", ["export"]), ("TR301", ["trace"])]
    # the fingerprint is its leading rule's, as when the three were reported apart
    assert result["partialFingerprints"]["compilelint/v1"] == item["fingerprint"]

    _, github = invoke(["--output-format", "github"], root, monkeypatch, capsys)
    assert sum(f"line={BRANCH_LINE}," in ln for ln in github.splitlines()) == 1


def test_noqa_of_one_code_takes_only_its_part(tmp_path, monkeypatch, capsys):
    _, text = invoke(["-q"], project(tmp_path, noqa="EX701"), monkeypatch, capsys)
    [line] = on_branch(text)
    assert line["code"] == "GB403" and line["msg"].endswith("(dynamo, trace TR301)")
    _, text = invoke(["-q"], project(tmp_path / "lead", noqa="GB403"), monkeypatch, capsys)
    [line] = on_branch(text)  # the next target leads what is left
    assert line["code"] == "EX701" and line["msg"].endswith("(export, trace TR301)")
    _, text = invoke(["-q"], project(tmp_path / "all", noqa="GB403, EX701, TR301"), monkeypatch, capsys)
    assert on_branch(text) == []


def test_select_and_ignore_apply_per_code_before_the_results_are_made(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    _, text = invoke(["-q", "--ignore", "TR301"], root, monkeypatch, capsys)
    [line] = on_branch(text)
    assert line["code"] == "GB403" and line["msg"].endswith("(dynamo, export EX701)")
    _, text = invoke(["-q", "--select", "TR,EX"], root, monkeypatch, capsys)
    [line] = on_branch(text)
    assert line["code"] == "EX701" and line["msg"].endswith("(export, trace TR301)")
    _, text = invoke(["-q", "--select", "TR301"], root, monkeypatch, capsys)
    [line] = on_branch(text)
    assert line["code"] == "TR301" and "(" not in line["msg"].rsplit("`", 1)[-1]  # alone: no targets list


def test_two_constructs_on_one_line_stay_two_results(tmp_path, monkeypatch, capsys):
    # the branch on the whole condition (EX701, TR301) and `.item()` inside it (GB401) are different nodes
    extra = textwrap.dedent('''

        class Gate(torch.nn.Module):
            def forward(self, x):
                if x.max().item() > 0:
                    x = x * 2
                return x


        def traced_gate(x):
            return torch.jit.trace(Gate(), (x,))
    ''')
    root = project(tmp_path, extra=extra)
    _, out = invoke(["--output-format", "json"], root, monkeypatch, capsys)
    gate_line = (MODEL + extra).splitlines().index("        if x.max().item() > 0:") + 1
    on_line = {(f["col"], f["end_col"]): f["codes"] for f in json.loads(out)["findings"] if f["line"] == gate_line}
    assert sorted(on_line.values()) == [["EX701", "TR301"], ["GB401"]], on_line
    _, text = invoke(["-q"], root, monkeypatch, capsys)
    assert sum(1 for m in map(LINE.match, text.splitlines()) if m and int(m["line"]) == gate_line) == 2


def test_statistics_and_baseline_count_every_code(tmp_path, monkeypatch, capsys):
    root = project(tmp_path)
    _, stats = invoke(["--statistics", "--output-format", "json"], root, monkeypatch, capsys)
    counts = {r["code"]: r["count"] for r in json.loads(stats)["statistics"]}
    assert counts["GB403"] == counts["EX701"] == counts["TR301"] == 1
    _, out = invoke(["--output-format", "json"], root, monkeypatch, capsys)
    findings = json.loads(out)["findings"]
    assert sum(counts.values()) == sum(len(f["codes"]) for f in findings) > len(findings)

    base = root / "base.json"
    invoke(["--write-baseline", str(base)], root, monkeypatch, capsys)
    assert sum(json.loads(base.read_text())["fingerprints"].values()) == sum(counts.values())  # one per code, as before
    code, out = invoke(["--baseline", str(base), "-q"], root, monkeypatch, capsys)
    assert code == 0 and out == ""
