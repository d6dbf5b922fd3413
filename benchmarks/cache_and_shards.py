"""Warm-cache and shard figures on a large real tree (default: the timm wheel of lint_vs_parse.py).

    python benchmarks/cache_and_shards.py [--tree DIR] [--jobs 2] [--shards 4]

Prints CPU seconds (user+sys, children included) of: a cold run, a warm run (nothing changed), and each
shard of N with a warm cache, and checks that the union of the shards equals the full run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lint_vs_parse import fetch_timm  # noqa: E402


def cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def run(tree: str, jobs: int, cache: str, *extra: str) -> tuple[float, list]:
    start = cpu()
    proc = subprocess.run([sys.executable, "-m", "compilelint", tree, "--jobs", str(jobs), "--output-format", "json",
                           "--cache-dir", cache, *extra], capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(proc.stderr)
    return cpu() - start, json.loads(proc.stdout)["findings"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tree")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args()
    tree = args.tree or fetch_timm()
    cache = tempfile.mkdtemp(prefix="compilelint-cache-")
    try:
        cold, full = run(tree, args.jobs, cache)
        warm, again = run(tree, args.jobs, cache)
        assert again == full
        print(f"cold: {cold:.2f} s CPU, warm: {warm:.2f} s CPU, speed-up {cold / warm:.1f}x ({len(full)} findings)")
        union = []
        for i in range(1, args.shards + 1):
            t, part = run(tree, args.jobs, cache, "--shard", f"{i}/{args.shards}")
            union += part
            print(f"shard {i}/{args.shards} (warm cache): {t:.2f} s CPU, {len(part)} findings")
        key = lambda f: (f["path"], f["line"], f["col"], f["code"])  # noqa: E731
        print("union of shards == full run:", sorted(union, key=key) == sorted(full, key=key))
        cold_shard_cache = tempfile.mkdtemp(prefix="compilelint-cache-")
        t, _ = run(tree, args.jobs, cold_shard_cache, "--shard", f"1/{args.shards}")
        shutil.rmtree(cold_shard_cache, ignore_errors=True)
        print(f"shard 1/{args.shards} with a cold cache: {t:.2f} s CPU (every file is still indexed)")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
