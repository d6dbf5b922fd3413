"""CPU cost of the TS1xx rules in the single-pass analyzer, on torch's own torch/nn sources.

    PYTHONPATH=$PWD python benchmarks/ts_rules_cost.py

Parses each file once, then runs analyze_source with (a) no rules, (b) the TS101-TS149/TS199 rules,
(c) every registered rule, and prints process CPU seconds (the best of 3 runs each).
"""
import glob
import os
import time

import torch

from compilelint.analyzer import analyze_source
from compilelint.rules.registry import all_rules


def cpu(files, rules) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for path, data in files:
            analyze_source(path, data, [r() for r in rules], module_name="torch.nn.x")
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    root = os.path.join(os.path.dirname(torch.__file__), "nn")
    paths = sorted(glob.glob(os.path.join(root, "**", "*.py"), recursive=True))
    files = [(p, open(p, "rb").read()) for p in paths]
    rules = all_rules()
    ts = [r for c, r in rules.items() if c.startswith("TS1")]
    base = cpu(files, [])
    with_ts = cpu(files, ts)
    every = cpu(files, list(rules.values()))
    print(f"{len(files)} files, {sum(len(d) for _, d in files) / 1e6:.1f} MB")
    print(f"no rules: {base:.2f}s  TS rules ({len(ts)}): {with_ts:.2f}s (+{with_ts - base:.2f}s)  "
          f"all {len(rules)} rules: {every:.2f}s")


if __name__ == "__main__":
    main()
