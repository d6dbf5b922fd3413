"""`compilelint bench`: a real run in a child process on CPU with a tiny pair and few rounds
(backend="eager" keeps it fast; the GPU figures in docs/bench/ come from the inductor backend), and the
statistics on their own: the bootstrap interval, the verdict, the interleaving, a timeout that keeps
what was measured."""

from __future__ import annotations

import json
import random
import textwrap

import pytest
from click.testing import CliRunner

torch = pytest.importorskip("torch")

from compilelint.cli import main  # noqa: E402
from compilelint.runtime_probe import bench  # noqa: E402

PAIR = "fixtures/models/refine_item_loop.py"


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    runner = CliRunner()
    res = runner.invoke(main, ["bench", f"{PAIR}:make_unfixed", "--compare", f"{PAIR}:make_fixed", "--rounds", "3",
                               "--min-rounds", "3", "--warmup", "1", "--backend", "eager", "-o", str(out / "b.json"),
                               "--chart", str(out / "b.html")])
    return res, json.loads((out / "b.json").read_text()), (out / "b.html").read_text()


def test_bench_measures_every_cpu_column(result):
    res, data, _ = result
    assert res.exit_code == 0, res.output
    assert set(data["results"]) == {"eager_unfixed", "compiled_unfixed", "eager_fixed", "compiled_fixed"}
    assert set(data["skipped"]) == {"compiled_unfixed_ro", "compiled_fixed_ro", "fused_fixed", "compiled_fused",
                                    "compiled_fused_ro"}
    for r in data["results"].values():
        assert r["rounds_timed"] == 3 and len(r["rounds_ms"]) == 3
        assert r["calls_timed"] == 3 * 3  # 3 rounds over 3 input sets
        assert 0 < r["median_ms"] <= r["p99_ms"]
        assert r["first_round_s"] > 0 and r["round_ms"] > 0
        assert r["matches_eager_unfixed"] is True


def test_bench_counts_what_dynamo_did(result):
    _, data, _ = result
    unfixed, fixed = data["results"]["compiled_unfixed"], data["results"]["compiled_fixed"]
    # `.item()` in the loop: Dynamo breaks (GB0124)
    assert unfixed["graph_breaks"] >= 1 and "GB0124" in unfixed["graph_break_ids"]
    assert fixed["graph_breaks"] == 0 and fixed["graphs"] == 1 and fixed["recompiles"] == 0
    entry = data["speedups"]["compiled_fixed_vs_compiled_unfixed"]
    assert entry["low"] <= entry["ratio"] <= entry["high"] and entry["rounds"] == 3
    assert data["deployed"] == {"mode": "default", "fix": "compiled_fixed_vs_compiled_unfixed", "fused": None}


def test_bench_writes_table_and_chart(result):
    res, data, page = result
    assert "speedup compiled_fixed vs compiled_unfixed (deployed): " in res.output
    assert "x [" in res.output  # every ratio with its interval
    assert page.startswith("<!doctype html>") and page.count("<svg") >= 2 and "<rect" in page
    assert "<script" not in page  # self-contained, static


def test_bench_reports_a_broken_target_without_crashing(tmp_path):
    data = bench.run_bench(f"{tmp_path}/missing.py:make", f"{PAIR}:make_fixed", rounds=1, warmup=0, timeout=120)
    assert "error" in data and "missing.py" in data["error"]
    assert "ERROR" in bench.render_table(data) and "ERROR" in bench.render_html(data)


def test_a_timeout_keeps_the_columns_and_rounds_measured(tmp_path):
    pair = tmp_path / "slow_pair.py"
    pair.write_text(textwrap.dedent("""
        import time
        import torch

        class Slow(torch.nn.Module):
            def forward(self, x):
                time.sleep(0.004)
                return x + 1

        class Fast(torch.nn.Module):
            def forward(self, x):
                return x + 1

        def make_unfixed(device="cpu"):
            return Slow(), [(torch.ones(3),)]

        def make_fixed(device="cpu"):
            return Fast(), [(torch.ones(3),)]
    """))
    data = bench.run_bench(f"{pair}:make_unfixed", f"{pair}:make_fixed", rounds=10**6, min_rounds=10**6,
                           seconds=1e6, warmup=0, timeout=10, variants=["eager_unfixed", "eager_fixed"])
    assert "timed out after 10s" in data["error"]
    unfixed, fixed = data["results"]["eager_unfixed"], data["results"]["eager_fixed"]
    assert unfixed["rounds_timed"] >= 20 and abs(unfixed["rounds_timed"] - fixed["rounds_timed"]) <= 1
    # the rounds kept give their ratio: the sleeping twin is the slower one, measurably
    point, low, high = bench.ratio_interval(fixed["rounds_ms"], unfixed["rounds_ms"])
    assert low > 1.0 and bench.verdict(low, high) == "faster"
    assert "timed: ['eager_fixed', 'eager_unfixed']" in data["error"]


def test_interval_and_verdict():
    rng = random.Random(1)
    fast = [1.0 + rng.random() * 0.1 for _ in range(60)]
    slow = [2.0 + rng.random() * 0.1 for _ in range(60)]
    point, low, high = bench.ratio_interval(fast, slow)
    assert 1.8 < low <= point <= high < 2.2 and bench.verdict(low, high) == "faster"
    point, low, high = bench.ratio_interval(slow, fast)
    assert high < 1.0 and bench.verdict(low, high) == "slower"
    # two draws from one distribution: the interval spans 1
    a = [1.0 + rng.gauss(0, 0.2) for _ in range(60)]
    b = [1.0 + rng.gauss(0, 0.2) for _ in range(60)]
    point, low, high = bench.ratio_interval(a, b)
    assert low < 1.0 < high and bench.verdict(low, high) == bench.NO_DIFFERENCE
    assert bench.ratio_interval([2.0], [4.0]) == (2.0, 2.0, 2.0)
    # the same seed, the same interval: figures re-render identically from a saved JSON
    assert bench.ratio_interval(a, b) == bench.ratio_interval(a, b)
    assert bench.format_ratio({"ratio": 1.01, "low": 0.98, "high": 1.04, "verdict": bench.NO_DIFFERENCE}) == \
        "1.01x [0.98, 1.04]"


def test_rounds_are_interleaved_in_rotation():
    names = ["a", "b", "c"]
    orders = [bench.rotated(names, r) for r in range(3)]
    assert orders == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"]]
    for position in range(3):  # each variant takes each position once every len(names) rounds
        assert sorted(o[position] for o in orders) == names


def test_percentile_and_speedups():
    assert bench._percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert bench._percentile([1.0, 2.0], 0.99) == pytest.approx(1.99)
    sp = bench.speedups({"compiled_fixed": {"rounds_ms": [2.0, 2.0, 2.0]},
                         "compiled_unfixed": {"rounds_ms": [5.0, 5.0, 5.0]}})
    assert set(sp) == {"compiled_fixed_vs_compiled_unfixed", "best_compiled_fixed_vs_best_compiled_unfixed"}
    assert sp["compiled_fixed_vs_compiled_unfixed"]["ratio"] == 2.5
    # each side in its best mode: fixed is slower by default (launch-bound) but wins under CUDA graphs
    sp = bench.speedups({"compiled_fixed": {"rounds_ms": [4.0] * 3}, "compiled_unfixed": {"rounds_ms": [3.0] * 3},
                         "compiled_fixed_ro": {"rounds_ms": [1.0] * 3}, "compiled_unfixed_ro": {"rounds_ms": [2.5] * 3}})
    assert sp["compiled_fixed_vs_compiled_unfixed"]["ratio"] == 0.75
    assert sp["compiled_fixed_vs_compiled_unfixed"]["verdict"] == "slower"
    assert sp["best_compiled_fixed_vs_best_compiled_unfixed"]["ratio"] == 2.5
    assert bench.deployed(sp, "reduce-overhead")["fix"] == "compiled_fixed_ro_vs_compiled_unfixed_ro"


def test_scale_is_an_int_or_deploy():
    assert bench.parse_scale("4") == 4 and bench.parse_scale("deploy") == "deploy"
    for bad in ("0", "big", "-1"):
        with pytest.raises(ValueError):
            bench.parse_scale(bad)


def test_each_compiled_variant_gets_its_own_forward_code():
    """Dynamo caches per code object: two compiled columns of one class must not share an entry or a limit."""

    class Head(torch.nn.Module):
        def forward(self, x, k: int = 2):
            return x * k

    a, b = bench._own_forward(Head()), bench._own_forward(Head())
    assert type(a).forward.__code__ is not type(b).forward.__code__ is not Head.forward.__code__
    assert isinstance(a, Head) and type(a).__name__ == "Head"
    x = torch.ones(3)
    assert torch.equal(a(x), Head()(x)) and torch.equal(b(x, k=3), x * 3)


def test_setup_order_puts_the_deployed_mode_first():
    for mode, suffix in (("default", ""), ("reduce-overhead", "_ro")):
        order = bench.by_priority(mode)
        assert sorted(order) == sorted(bench.VARIANTS)
        assert order[:4] == ["eager_unfixed", f"compiled_unfixed{suffix}", f"compiled_fixed{suffix}",
                             f"compiled_fused{suffix}"]


def test_every_pair_names_its_deployed_mode_and_takes_the_deploy_scale():
    import importlib
    import inspect

    from fixtures.models import PAIRS

    for name in PAIRS:
        if name == "custom_nms":  # a custom-op fixture, not benched
            continue
        mod = importlib.import_module(f"fixtures.models.{name}")
        assert mod.DEPLOY in bench.DEPLOYED, name
        for factory in ("make_unfixed", "make_fixed", "make_fused"):
            if hasattr(mod, factory):
                assert "scale" in inspect.signature(getattr(mod, factory)).parameters, (name, factory)
    from fixtures.models import policy_head

    model, inputs = policy_head.make_fixed(scale="deploy")
    assert [tuple(x.shape) for (x,) in inputs] == [(1, 48)] * 4  # the latency case: batch 1


def test_a_prime_pass_sets_every_pair_up_first_and_keeps_its_first_rounds(tmp_path):
    """benchmarks/fixtures_bench.py --prime: each pair is set up once with no timed rounds (filling the
    compile caches), then timed; the prime pass's first rounds are kept beside the timed pass's."""
    import subprocess
    import sys

    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "benchmarks/fixtures_bench.py", "--pairs", "refine_item_loop,policy_head",
                           "--prime", "2", "--backend", "eager", "--rounds", "2", "--min-rounds", "2", "--seconds", "0",
                           "--warmup", "0", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "prime pass: 2 pairs set up, 2 at a time" in proc.stdout
    runs = json.loads((out / "bench.json").read_text())
    assert [r["pair"] for r in runs] == ["refine_item_loop", "policy_head"]
    for run in runs:
        assert set(run["cold_first_round_s"]) == set(run["results"])
        for column in run["results"].values():
            assert column["rounds_timed"] == 2 and column["cold_first_round_s"] > 0
    assert "cold first s" in (out / "bench.txt").read_text()
