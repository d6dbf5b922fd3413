"""The real-world ground truth (benchmarks/realworld): the registry, the committed oracle events, and the
scorer run on them with today's rules (the oracle itself is run by hand: README.md there).

The scorer's figures must not fall below benchmarks/realworld/floor.json: a change that loses precision or
recall on real code fails here, and a change that gains raises the floor (write it with --write-floor).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.realworld import oracle, score  # noqa: E402
from benchmarks.realworld.registry import entries  # noqa: E402

EVENTS = ROOT / "benchmarks" / "realworld" / "events.jsonl"
FLOOR = ROOT / "benchmarks" / "realworld" / "floor.json"
REASONS = {oracle.NO_LINE, oracle.INSIDE_TORCH, oracle.OUTSIDE, oracle.ORACLE_CODE, oracle.AUTOMATIC_DYNAMIC,
           oracle.AUTOMATIC_DYNAMIC_NUMBER, oracle.ZERO_ONE, oracle.TORCH_SIZE_GUARD, oracle.CALLED_SIGNATURE}


@pytest.fixture(scope="module")
def recorded():
    return score.load(str(EVENTS))


def test_registry_has_forty_models_from_five_libraries():
    registry = entries()
    libraries = Counter(e.library for e in registry)
    assert len(registry) >= 40 and len(libraries) >= 5, libraries
    assert not {"timm", "torchvision", "transformers"} & set(libraries)
    for path in {e.path for e in registry}:
        text = (ROOT / path).read_text()
        # the ground truth must not be built on the code the project is judged with
        assert "import timm" not in text and "torchvision" not in text and "transformers import" not in text


def test_every_model_was_run_by_the_oracle(recorded):
    models, events = recorded
    names = {e.name for e in entries()}
    ran = {m["model"] for m in models}
    assert names == ran, (sorted(names - ran), sorted(ran - names))
    for m in models:
        assert m["versions"]["torch"] and m["versions"][m["library"]], m["model"]
        assert m["input_sets"] >= 2 or m["status"] != "ok", m["model"]
        assert m["calls"] >= 5
    ok = [m for m in models if m["status"] == "ok"]
    assert len(ok) >= 40


def test_events_say_whether_and_why_they_are_scored(recorded):
    _, events = recorded
    assert events
    for e in events:
        assert e["target"] in (*score.TARGETS, "model"), e
        assert e["scorable"] == (e["why_not"] is None), e
        assert e["why_not"] is None or e["why_not"] in REASONS, e["why_not"]
        if e["scorable"]:
            assert e["file"] and e["line"] and not e["file"].startswith(("/", "torch/")), e
    assert {e["target"] for e in events if e["scorable"]} >= {"trace", "dynamo", "torchscript", "export"}


def test_a_recompile_is_classified_by_its_newest_cache_entry():
    """What Dynamo did (2.13, recompile logs): reasons are one failed guard per cache entry, newest first."""
    changed: set = set()
    first = ["tensor 'x' size mismatch at index 2. expected 32, actual 16"]
    assert oracle.recompile_policy(first, changed) == oracle.AUTOMATIC_DYNAMIC
    # the same size static again in the newest entry: the code specialised it (a loop over it, an op taking it)
    again = ["tensor 'x' size mismatch at index 2. expected 16, actual 48", "tensor 'x' size mismatch at index 2. "
             "expected 1, actual 48"]
    assert oracle.recompile_policy(again, changed) == ""
    # a dynamic batch's lower bound failed by batch 1 (the size from an older entry's guard), and CPU
    # convolution's backend choice at batch 16, which torch's own code adds
    assert oracle.recompile_policy(["2 <= x.size()[0] <= 15", "tensor 'x' size mismatch at index 0. expected 4, "
                                    "actual 1"], set()) == oracle.ZERO_ONE
    assert oracle.recompile_policy(["2 <= x.size()[0] <= 15", "tensor 'x' size mismatch at index 0. expected 4, "
                                    "actual 16"], set()) == oracle.TORCH_SIZE_GUARD
    assert oracle.recompile_policy(["2 <= x.size()[0] <= 15"], set(), [["lib/m.py", 3]]) == ""
    # an int's first change is automatic dynamic; a list's length and a module attribute are guarded per value
    numbers: set = set()
    assert oracle.recompile_policy(["num_nodes == 10"], numbers) == oracle.AUTOMATIC_DYNAMIC_NUMBER
    assert oracle.recompile_policy(["num_nodes == 17"], numbers) == ""
    assert oracle.recompile_policy(["len(___stack0) == 2"], set()) == ""
    assert oracle.recompile_policy(["self.step == 3"], set()) == ""
    # parameters keep static shapes: instances of one class with other widths recompile per instance
    param = ("tensor 'self._modules['conv']._parameters['weight']' size mismatch at index 0. expected 8, actual 4."
             " Guard failed on a parameter")
    assert oracle.recompile_policy([param], set()) == ""


def test_scorer_on_todays_rules_holds_the_floor():
    result = score.score(str(EVENTS), score.SOURCES)
    table = result["targets"]
    sys.stdout.write(score.render(result))
    assert set(table) == set(score.TARGETS)
    floor = json.loads(FLOOR.read_text())
    for target, row in table.items():
        assert row["exercised"] + row["masked"] + row["not_exercised"] == row["claim_sites"]
        assert row["right"] <= row["exercised"] and row["found"] <= row["scorable_sites"]
        want = floor[target]
        for key in ("precision", "recall"):
            if want.get(key) is not None:
                assert row[key] is not None and row[key] >= want[key] - 1e-9, (target, key, row[key], want[key])
