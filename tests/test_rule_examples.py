"""Every rule's bad examples are flagged and fail under real torch; every good twin is clean and passes."""

from __future__ import annotations

import pytest

from compilelint.rules.registry import all_rules
from tests.harness import lint_example, torch_verdict, write_example

torch = pytest.importorskip("torch")

RULES = all_rules()
# A rule whose claim holds up to some Python only (Rule.max_python) is off on a newer one, and its examples are
# not judged there: what that Python does instead is in the rule's version_note.
_OFF_HERE = [pytest.mark.skip(reason="the rule's claim holds on older Python only (max_python)")]


def _marks(rule) -> list:  # noqa: ANN001
    from compilelint.engine import applies_to_python

    return [] if applies_to_python(rule) else _OFF_HERE


BAD = [pytest.param(rule, i, id=f"{code}-bad{i}", marks=_marks(rule)) for code, rule in RULES.items()
       for i in range(len(rule.bad))]
GOOD = [pytest.param(rule, i, id=f"{code}-good{i}", marks=_marks(rule)) for code, rule in RULES.items()
        for i in range(len(rule.good))]


def test_every_rule_has_docs_and_both_kinds_of_example():
    for code, rule in RULES.items():
        assert rule.bad and rule.good, f"{code} needs bad and good examples"
        assert rule.doc is not None and rule.doc.what and rule.doc.why and rule.doc.use_instead, code
        assert rule.targets, code
        for ex in rule.bad:
            assert ex.marked_lines(), f"{code}: a bad example must mark its lines with '# <-'"
        if rule.family == "graph-break" and not rule.dynamo_error:
            assert rule.gb_id and rule.gb_id.startswith("GB"), code
        if rule.dynamo_error:  # no break to cite: every example is judged by where Dynamo's error points
            assert not rule.gb_id and all(ex.check == "dynamo-error" for ex in (*rule.bad, *rule.good)), code


@pytest.mark.parametrize("rule,index", BAD)
def test_bad_example_is_flagged_on_marked_lines(rule, index, tmp_path):
    example = rule.bad[index]
    path = write_example(tmp_path, rule, "bad", index, example)
    assert lint_example(path, rule.code) == example.marked_lines()


@pytest.mark.parametrize("rule,index", GOOD)
def test_good_example_is_clean(rule, index, tmp_path):
    path = write_example(tmp_path, rule, "good", index, rule.good[index])
    assert lint_example(path, rule.code) == []


def _skip_outside_its_torch(example) -> None:  # noqa: ANN001
    """An example verified from a later torch only (Example.min_torch), or up to an older one only
    (Example.max_torch, for rules about older releases), is not judged on another release; the rule's
    version_note says what that release does."""
    from compilelint.engine import _version

    installed = _version(torch.__version__)
    if example.min_torch and installed < _version(example.min_torch):
        pytest.skip(f"this example's verdict holds from torch {example.min_torch} (see the rule's version_note)")
    if example.max_torch and installed > _version(example.max_torch):
        pytest.skip(f"this example's verdict holds up to torch {example.max_torch} (see the rule's version_note)")


def test_every_example_is_judged_by_the_ci_torch():
    """An example marked min_torch (its verdict holds from that release on) above the torch CI installs (the
    pin in .ci/run) would be skipped there, so no run would ever put it through real torch."""
    import re
    from pathlib import Path

    from compilelint.engine import _version

    pin = re.search(r"torch==([0-9.]+)", (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text())
    assert pin, ".ci/run pins torch"
    late = [(code, ex.min_torch) for code, rule in RULES.items() for ex in (*rule.bad, *rule.good)
            if ex.min_torch and _version(ex.min_torch) > _version(pin.group(1))]
    assert not late, late


def test_examples_for_older_torch_belong_to_rules_for_older_torch():
    """An example judged only up to some release (max_torch) belongs to a rule that is off beyond it (the
    rule's max_torch), and that says on which release it was verified; such examples run on the GPU machine
    (torch 2.11), not in CI."""
    from compilelint.engine import _version

    for code, rule in RULES.items():
        for ex in (*rule.bad, *rule.good):
            if ex.max_torch:
                assert rule.max_torch and _version(rule.max_torch) <= _version(ex.max_torch), code
                assert _version(rule.verified_on) <= _version(ex.max_torch), code


@pytest.mark.parametrize("rule,index", BAD)
def test_bad_example_fails_under_real_torch(rule, index, tmp_path):
    example = rule.bad[index]
    _skip_outside_its_torch(example)
    path = write_example(tmp_path, rule, "bad", index, example)
    holds, detail = torch_verdict(rule, path, example)
    assert holds, f"{rule.code}: torch did not bear out the claim: {detail}"
    if rule.family == "graph-break":
        assert not detail.startswith("NO MATCHING BREAK"), detail
    if rule.family == "export":
        assert not detail.startswith(("NO MATCHING LINE", "WRONG ERROR")), detail


@pytest.mark.parametrize("rule,index", GOOD)
def test_good_example_passes_under_real_torch(rule, index, tmp_path):
    example = rule.good[index]
    _skip_outside_its_torch(example)
    path = write_example(tmp_path, rule, "good", index, example)
    holds, detail = torch_verdict(rule, path, example)
    assert not holds, f"{rule.code}: the good twin also fails under torch: {detail}"


FIXABLE = [pytest.param(rule, i, id=f"{code}-fix{i}") for code, rule in RULES.items() if rule.has_fix
           for i in range(len(rule.bad))]


@pytest.mark.parametrize("rule,index", FIXABLE)
def test_fix_makes_bad_example_pass_lint_and_torch(rule, index, tmp_path):
    """--fix on a bad example: the rule no longer fires, a second run changes nothing, torch now passes."""
    from compilelint.config import Config
    from compilelint.engine import lint
    from compilelint.fix import fix_files

    example = rule.bad[index]
    path = write_example(tmp_path, rule, "fix", index, example)
    config = Config(select=[rule.code], root=str(tmp_path))

    def once():
        return lint([str(path)], config, jobs=1).findings

    changes, applied = fix_files(once, unsafe=True, write=True)
    assert applied >= 1, f"{rule.code} claims a fix but none applied"
    assert lint_example(path, rule.code) == []
    assert fix_files(once, unsafe=True, write=True) == ({}, 0)  # idempotent
    fixed_source = path.read_text()
    fixed_path = tmp_path / f"fixed_{path.name}"
    fixed_path.write_text(fixed_source)
    holds, detail = torch_verdict(rule, fixed_path, example)
    assert not holds, f"{rule.code}: the fixed example still fails under torch: {detail}"
