"""Probe overhead: `compilelint probe TARGET` against one torch.compile warm-up plus an explain run.

For each target, both sides start a fresh Python process, so both pay for the interpreter, `import torch`
and the factory:
  baseline  python -c: import torch, build the model with the factory, `torch.compile(model,
            backend=B, dynamic=DYNAMIC)` called once on the first input set (the warm-up), then
            `torch._dynamo.explain(model)(*first_input_set)`;
  probe     compilelint.runtime_probe.probe.probe([target]) in this process: the child (eager run with
            line coverage, Dynamo over every input set, script, trace + check, export), then the lint of
            the touched files and the matching.
The issue's acceptance is probe <= 2x baseline. Run by hand (many compiles; not part of the tests):

    PYTHONPATH=$PWD python benchmarks/probe_overhead.py                      # fixtures/models pairs, else tests/probe_targets
    PYTHONPATH=$PWD python benchmarks/probe_overhead.py --backend eager T.py:make ...
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from compilelint.config import Config  # noqa: E402
from compilelint.runtime_probe.probe import probe  # noqa: E402

_BASELINE = r'''
import importlib, json, os, sys, time
spec = json.loads(sys.argv[1])
import torch
from compilelint.runtime_probe.child import _import_target
from compilelint.runtime_probe.spec import normalize
module = _import_target(spec)
built = normalize(getattr(module, spec["factory"])())
dynamic = built.dynamic if built.has_dynamic else getattr(module, "DYNAMIC", None)
args = built.input_sets[0]
t = time.perf_counter()
compiled = torch.compile(built.model, backend=spec["backend"], dynamic=dynamic)
compiled(*args)
warm = time.perf_counter() - t
t = time.perf_counter()
explanation = torch._dynamo.explain(built.model)(*args)
explain = time.perf_counter() - t
print(json.dumps({"warmup_s": warm, "explain_s": explain, "graphs": explanation.graph_count,
                  "breaks": explanation.graph_break_count}))
'''


def default_targets() -> list[str]:
    fixtures = os.path.join(ROOT, "fixtures", "models")
    if os.path.isdir(fixtures):
        pairs = importlib.import_module("fixtures.models").PAIRS
        return [f"fixtures/models/{p}.py:{f}" for p in pairs for f in ("make_unfixed", "make_fixed")]
    return ["tests/probe_targets/item_counter.py:make_unfixed", "tests/probe_targets/item_counter.py:make_fixed",
            "tests/probe_targets/mixed.py:make"]


def baseline(target: str, backend: str) -> tuple[float, dict]:
    from compilelint.runtime_probe.spec import parse_target

    t = parse_target(target, ROOT)
    spec = {"file": t.file, "module": t.module, "factory": t.factory, "backend": backend}
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", _BASELINE, json.dumps(spec)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=1200)
    wall = time.monotonic() - start
    if out.returncode != 0:
        raise RuntimeError(f"baseline failed for {target}: {out.stderr[-2000:]}")
    return wall, json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("targets", nargs="*")
    parser.add_argument("--backend", default="inductor", help="torch.compile backend of the baseline warm-up")
    parser.add_argument("--repeat", type=int, default=1)
    ns = parser.parse_args()
    os.chdir(ROOT)
    targets = ns.targets or default_targets()
    rows = []
    for target in targets:
        bases, probes = [], []
        detail: dict = {}
        status = ""
        for _ in range(ns.repeat):
            b, detail = baseline(target, ns.backend)
            bases.append(b)
            start = time.monotonic()
            result = probe([target], Config(root=ROOT), base=ROOT)
            probes.append(time.monotonic() - start)
            status = result.runs[0].status
        base, prb = statistics.median(bases), statistics.median(probes)
        rows.append((target, base, prb, prb / base, status, detail))
        print(f"{target:60s} baseline {base:6.1f}s  probe {prb:6.1f}s  ratio {prb / base:4.2f}  ({status}; "
              f"warm-up {detail['warmup_s']:.1f}s, explain {detail['explain_s']:.1f}s)", flush=True)
    total_b = sum(r[1] for r in rows)
    total_p = sum(r[2] for r in rows)
    ratios = [r[3] for r in rows]
    print(f"\n{len(rows)} targets, baseline backend={ns.backend}: total baseline {total_b:.1f}s, probe {total_p:.1f}s, "
          f"ratio of totals {total_p / total_b:.2f}; per target median {statistics.median(ratios):.2f}, "
          f"max {max(ratios):.2f}")


if __name__ == "__main__":
    main()
