"""Run `compilelint bench` for every fixture pair, then (with --kernels) the bundled kernels' bench, and write
one JSON, one table and one HTML chart.

    python benchmarks/fixtures_bench.py --device cuda --scale deploy --kernels --out docs/bench/h200

Each pair runs in its own child process (compilelint.runtime_probe.bench.run_bench), one after the other,
so timings never share the device; inside it, the pair's variants are timed in interleaved rounds (see
that module). Results are written after every pair, so a run cut short keeps what it measured, and a
pair cut short by its --timeout keeps the columns it set up and the rounds it timed. One inductor cache
for the whole run (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR).

Compiles take most of a run on a GPU (a `dynamic=True` graph with data-dependent sizes or CUDA graphs over
symbolic shapes: about a minute each), and they need the CPU, not the device. So on CUDA a prime pass
first sets up every pair, --prime at a time, with no timed rounds: their compiles fill the run's caches
(Inductor's FX graph cache, AOTAutograd's, Triton's), and the timed pass, one pair at a time as before,
compiles from them. The prime pass's first rounds are kept per column as `cold_first_round_s` (compiled
beside the other pairs, so an upper bound of a cold compile); the timed pass's as `first_round_s`.

--kernels runs benchmarks/kernels.py (full shapes) after
the pairs, in the same run, its output in kernels.txt / kernels.json beside the pairs' files.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compilelint.runtime_probe.bench import (deployed, parse_scale, render_html, render_table,  # noqa: E402
                                             run_bench, speedups)
from fixtures.models import PAIRS  # noqa: E402

ORDER = ("refine_item_loop", "yolo_post", "policy_head", "keypoint_post", "moe_router", "vl_cross_attn",
         "bev_fusion", "voxelize", "vision_stem")


def write(runs: list[dict], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.json").write_text(json.dumps(runs, indent=2) + "\n")
    (out / "bench.txt").write_text("\n".join(render_table(r) for r in runs))
    (out / "bench.html").write_text(render_html(runs))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--out", default="docs/bench")
    ap.add_argument("--pairs", default="")
    ap.add_argument("--rounds", type=int, default=400, help="at most this many timed rounds per pair")
    ap.add_argument("--seconds", type=float, default=15.0, help="seconds of timed rounds per pair (min-rounds first)")
    ap.add_argument("--min-rounds", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--scale", type=parse_scale, default=1, help="a positive int (CI sizes times it), or 'deploy'")
    ap.add_argument("--timeout", type=float, default=420.0, help="seconds per pair; what finished is kept")
    ap.add_argument("--setup-seconds", type=float, default=0.0,
                    help="per pair: set up no further variant after this long (0: every variant)")
    ap.add_argument("--budget", type=float, default=0.0, help="start no further pair after this many seconds")
    ap.add_argument("--variants", default="", help="comma-separated columns, in this order (default: all)")
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--kernels", action="store_true", help="then run benchmarks/kernels.py (full shapes)")
    ap.add_argument("--kernel-rounds", type=int, default=3)
    ap.add_argument("--kernel-only", default="", help="kernels.py --only: these kernel groups (default: all)")
    ap.add_argument("--prime", type=int, default=None,
                    help="set up every pair this many at a time before timing, to fill the compile caches "
                         "(default: 3 on CUDA, 0 = no prime pass on a CPU)")
    ap.add_argument("--merge", nargs="+", default=[], metavar="JSON",
                    help="run nothing: merge these bench.json files (later ones win per pair) into --out")
    ns = ap.parse_args()
    if ns.merge:
        return merge(ns.merge, Path(ns.out))
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-cache-"))
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="triton-cache-"))
    pairs = [p for p in ns.pairs.split(",") if p] or [p for p in ORDER if p in PAIRS]
    variants = [v for v in ns.variants.split(",") if v] or None
    out = Path(ns.out)
    runs, start = [], time.time()

    def bench(name: str, **timing: float) -> dict:
        path = ROOT / "fixtures" / "models" / f"{name}.py"
        return run_bench(f"{path}:make_unfixed", f"{path}:make_fixed", device=ns.device, warmup=ns.warmup,
                         scale=ns.scale, timeout=ns.timeout, setup_seconds=ns.setup_seconds, variants=variants,
                         backend=ns.backend, **timing)

    prime = ns.prime if ns.prime is not None else (3 if ns.device.startswith("cuda") else 0)
    cold: dict[str, dict] = {}
    if prime > 0:
        t = time.time()
        with ThreadPoolExecutor(prime) as pool:
            primed = dict(zip(pairs, pool.map(lambda n: bench(n, rounds=0, seconds=0.0, min_rounds=0), pairs)))
        for name, data in primed.items():
            cold[name] = {v: s["first_round_s"] for v, s in data.get("setup", {}).items()}
            if data.get("error"):
                cold[name]["error"] = data["error"]
        print(f"prime pass: {len(pairs)} pairs set up, {prime} at a time, in {time.time() - t:.0f}s", flush=True)
    for name in pairs:
        if ns.budget and time.time() - start > ns.budget:
            print(f"budget spent: not run: {name}", flush=True)
            continue
        t = time.time()
        data = bench(name, rounds=ns.rounds, seconds=ns.seconds, min_rounds=ns.min_rounds)
        if name in cold:
            data["cold_first_round_s"] = cold[name]
            for variant, result in data.get("results", {}).items():
                result["cold_first_round_s"] = cold[name].get(variant)
        data["pair"] = name
        data["unfixed"] = f"fixtures/models/{name}.py:make_unfixed"
        data["fixed"] = f"fixtures/models/{name}.py:make_fixed"
        data["wall_s"] = time.time() - t
        runs.append(data)
        print(render_table(data), f"({data['wall_s']:.0f}s)", flush=True)
        write(runs, out)
    if ns.kernels:
        cmd = [sys.executable, str(ROOT / "benchmarks" / "kernels.py"), "--rounds", str(ns.kernel_rounds),
               "--json", str(out / "kernels.json")]
        if ns.kernel_only:
            cmd += ["--only", *ns.kernel_only.split(",")]
        with open(out / "kernels.txt", "w") as log:
            proc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        print((out / "kernels.txt").read_text()[-6000:], flush=True)
        if proc.returncode:
            print(f"kernels.py exited {proc.returncode}", flush=True)
    return 0


def merge(paths: list[str], out: Path) -> int:
    """One JSON / table / chart from runs made in several calls (pairs split over calls or GPUs)."""
    by_pair: dict[str, dict] = {}
    for path in paths:
        for data in json.loads(Path(path).read_text()):
            if data.get("results"):
                data["speedups"] = speedups(data["results"])  # recomputed: newer ratios included
                data["deployed"] = deployed(data["speedups"], data.get("deployed_mode", "default"))
            by_pair[data["pair"]] = data
    runs = [by_pair[p] for p in ORDER if p in by_pair] + [d for p, d in by_pair.items() if p not in ORDER]
    write(runs, out)
    print((out / "bench.txt").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
