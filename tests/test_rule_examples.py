"""Every rule's bad examples are flagged and fail under real torch; every good twin is clean and passes."""

from __future__ import annotations

import pytest

from compilelint.rules.registry import all_rules
from tests.harness import lint_example, torch_verdict, write_example

torch = pytest.importorskip("torch")

RULES = all_rules()
BAD = [pytest.param(rule, i, id=f"{code}-bad{i}") for code, rule in RULES.items() for i in range(len(rule.bad))]
GOOD = [pytest.param(rule, i, id=f"{code}-good{i}") for code, rule in RULES.items() for i in range(len(rule.good))]


def test_every_rule_has_docs_and_both_kinds_of_example():
    for code, rule in RULES.items():
        assert rule.bad and rule.good, f"{code} needs bad and good examples"
        assert rule.doc is not None and rule.doc.what and rule.doc.why and rule.doc.use_instead, code
        assert rule.targets, code
        for ex in rule.bad:
            assert ex.marked_lines(), f"{code}: a bad example must mark its lines with '# <-'"
        if rule.family == "graph-break":
            assert rule.gb_id and rule.gb_id.startswith("GB"), code


@pytest.mark.parametrize("rule,index", BAD)
def test_bad_example_is_flagged_on_marked_lines(rule, index, tmp_path):
    example = rule.bad[index]
    path = write_example(tmp_path, rule, "bad", index, example)
    assert lint_example(path, rule.code) == example.marked_lines()


@pytest.mark.parametrize("rule,index", GOOD)
def test_good_example_is_clean(rule, index, tmp_path):
    path = write_example(tmp_path, rule, "good", index, rule.good[index])
    assert lint_example(path, rule.code) == []


@pytest.mark.parametrize("rule,index", BAD)
def test_bad_example_fails_under_real_torch(rule, index, tmp_path):
    example = rule.bad[index]
    path = write_example(tmp_path, rule, "bad", index, example)
    holds, detail = torch_verdict(rule, path, example)
    assert holds, f"{rule.code}: torch did not bear out the claim: {detail}"
    if rule.family == "graph-break":
        assert not detail.startswith("NO MATCHING BREAK"), detail


@pytest.mark.parametrize("rule,index", GOOD)
def test_good_example_passes_under_real_torch(rule, index, tmp_path):
    example = rule.good[index]
    path = write_example(tmp_path, rule, "good", index, example)
    holds, detail = torch_verdict(rule, path, example)
    assert not holds, f"{rule.code}: the good twin also fails under torch: {detail}"
