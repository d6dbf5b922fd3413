"""`compilelint bench`: a real run in a child process on CPU with a tiny pair and few rounds
(backend="eager" keeps it fast; the GPU figures in docs/bench/ come from the inductor backend)."""

from __future__ import annotations

import json

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
    res = runner.invoke(main, ["bench", f"{PAIR}:make_unfixed", "--compare", f"{PAIR}:make_fixed", "--iters", "3",
                               "--warmup", "1", "--backend", "eager", "-o", str(out / "b.json"),
                               "--chart", str(out / "b.html")])
    return res, json.loads((out / "b.json").read_text()), (out / "b.html").read_text()


def test_bench_measures_every_cpu_column(result):
    res, data, _ = result
    assert res.exit_code == 0, res.output
    assert set(data["results"]) == {"eager_unfixed", "compiled_unfixed", "eager_fixed", "compiled_fixed"}
    assert set(data["skipped"]) == {"compiled_unfixed_ro", "compiled_fixed_ro", "fused_fixed"}
    for r in data["results"].values():
        assert r["calls_timed"] == 3 * 3  # 3 rounds over 3 input sets
        assert 0 < r["median_ms"] <= r["p99_ms"]
        assert r["first_round_s"] > 0 and r["round_ms"] > 0
        assert r["matches_eager_unfixed"] is True


def test_bench_counts_what_dynamo_did(result):
    _, data, _ = result
    unfixed, fixed = data["results"]["compiled_unfixed"], data["results"]["compiled_fixed"]
    # `.item()` in the loop: Dynamo breaks (GB0124) and runs the whole frame eagerly (GB7000)
    assert unfixed["graph_breaks"] >= 1 and "GB0124" in unfixed["graph_break_ids"]
    assert unfixed["frames_skipped"] >= 1
    assert fixed["graph_breaks"] == 0 and fixed["graphs"] == 1 and fixed["recompiles"] == 0
    assert "compiled_fixed_vs_compiled_unfixed" in data["speedups"]


def test_bench_writes_table_and_chart(result):
    res, data, page = result
    assert "compiled_fixed" in res.output and "speedup compiled_fixed vs compiled_unfixed" in res.output
    assert page.startswith("<!doctype html>") and page.count("<svg") >= 2 and "<rect" in page
    assert "<script" not in page  # self-contained, static


def test_bench_reports_a_broken_target_without_crashing(tmp_path):
    data = bench.run_bench(f"{tmp_path}/missing.py:make", f"{PAIR}:make_fixed", iters=1, warmup=0, timeout=120)
    assert "error" in data and "missing.py" in data["error"]
    assert "ERROR" in bench.render_table(data) and "ERROR" in bench.render_html(data)


def test_percentile_and_speedups():
    assert bench._percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert bench._percentile([1.0, 2.0], 0.99) == pytest.approx(1.99)
    sp = bench.speedups({"compiled_fixed": {"round_ms": 2.0}, "compiled_unfixed": {"round_ms": 5.0}})
    assert sp == {"compiled_fixed_vs_compiled_unfixed": 2.5, "best_compiled_fixed_vs_best_compiled_unfixed": 2.5}
    # each side in its best mode: fixed is slower by default (launch-bound) but wins under CUDA graphs
    sp = bench.speedups({"compiled_fixed": {"round_ms": 4.0}, "compiled_unfixed": {"round_ms": 3.0},
                         "compiled_fixed_ro": {"round_ms": 1.0}, "compiled_unfixed_ro": {"round_ms": 2.5}})
    assert sp["compiled_fixed_vs_compiled_unfixed"] == 0.75
    assert sp["best_compiled_fixed_vs_best_compiled_unfixed"] == 2.5
