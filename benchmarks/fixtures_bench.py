"""Run `compilelint bench` for every fixture pair and write one JSON, one table and one HTML chart.

    python benchmarks/fixtures_bench.py --device cuda --out docs/bench [--pairs a,b] [--iters 20] [--scale 4]

Each pair runs in its own child process (compilelint.runtime_probe.bench.run_bench), one after the other,
so timings never share the device. Results are written after every pair, so a run cut short keeps what it
measured. One inductor cache for the whole run (TORCHINDUCTOR_CACHE_DIR), so the default and
reduce-overhead compiles of the same graph share their codegen.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compilelint.runtime_probe.bench import render_html, render_table, run_bench, speedups  # noqa: E402
from fixtures.models import PAIRS  # noqa: E402

ORDER = ("refine_item_loop", "yolo_post", "policy_head", "keypoint_post", "moe_router", "vl_cross_attn",
         "bev_fusion", "voxelize", "vision_stem")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default="docs/bench")
    ap.add_argument("--pairs", default="")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per pair")
    ap.add_argument("--variants", default="", help="comma-separated columns, in this order (default: all)")
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--budget", type=float, default=0.0, help="stop starting pairs after this many seconds")
    ap.add_argument("--merge", nargs="+", default=[], metavar="JSON",
                    help="run nothing: merge these bench.json files (later ones win per pair) into --out")
    ns = ap.parse_args()
    if ns.merge:
        return merge(ns.merge, Path(ns.out))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-cache-"))
    pairs = [p for p in ns.pairs.split(",") if p] or [p for p in ORDER if p in PAIRS]
    out = Path(ns.out)
    out.mkdir(parents=True, exist_ok=True)
    runs, start = [], time.time()
    for name in pairs:
        if ns.budget and time.time() - start > ns.budget:
            print(f"budget spent: not run: {name}", flush=True)
            continue
        path = ROOT / "fixtures" / "models" / f"{name}.py"
        t = time.time()
        data = run_bench(f"{path}:make_unfixed", f"{path}:make_fixed", device=ns.device, iters=ns.iters,
                         warmup=ns.warmup, scale=ns.scale, timeout=ns.timeout,
                         variants=[v for v in ns.variants.split(",") if v] or None, backend=ns.backend)
        data["pair"] = name
        data["unfixed"] = f"fixtures/models/{name}.py:make_unfixed"
        data["fixed"] = f"fixtures/models/{name}.py:make_fixed"
        data["wall_s"] = time.time() - t
        runs.append(data)
        print(render_table(data), f"({data['wall_s']:.0f}s)", flush=True)
        (out / "bench.json").write_text(json.dumps(runs, indent=2))
        (out / "bench.txt").write_text("\n".join(render_table(r) for r in runs))
        (out / "bench.html").write_text(render_html(runs))
    return 0


def merge(paths: list[str], out: Path) -> int:
    """One JSON / table / chart from runs made in several calls (e.g. pairs split over two GPUs)."""
    by_pair: dict[str, dict] = {}
    for path in paths:
        for data in json.loads(Path(path).read_text()):
            data["speedups"] = speedups(data.get("results", {}))  # recomputed: newer ratios included
            by_pair[data["pair"]] = data
    runs = [by_pair[p] for p in ORDER if p in by_pair] + [d for p, d in by_pair.items() if p not in ORDER]
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(runs, indent=2))
    (out / "bench.txt").write_text("\n\n".join(render_table(r) for r in runs) + "\n")
    (out / "bench.html").write_text(render_html(runs))
    print((out / "bench.txt").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
