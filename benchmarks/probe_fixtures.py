"""Probe every fixture pair (fixtures/models/, unfixed and fixed) plus tests/probe_targets on a device, and
write the text and JSON reports. Run by hand (18+ children, each importing torch and compiling):

    PYTHONPATH=$PWD python benchmarks/probe_fixtures.py --device cpu -j 2
    PYTHONPATH=$PWD python benchmarks/probe_fixtures.py --device cuda -j 6 --out /tmp/probe_cuda
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from compilelint.config import Config  # noqa: E402
from compilelint.runtime_probe.probe import probe, render  # noqa: E402


def fixture_targets() -> list[str]:
    init = os.path.join(ROOT, "fixtures", "models", "__init__.py")
    if not os.path.isfile(init):
        return []
    with open(init, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    pairs = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "PAIRS")
    return [f"fixtures/models/{p}.py:{f}" for p in pairs for f in ("make_unfixed", "make_fixed")]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    ns = parser.parse_args()
    os.chdir(ROOT)
    targets = fixture_targets() + [
        "tests/probe_targets/item_counter.py:make_unfixed", "tests/probe_targets/item_counter.py:make_fixed",
        "tests/probe_targets/mixed.py:make", "tests/probe_targets/failing.py:make_abort"]
    start = time.time()
    result = probe(targets, Config(root=ROOT), device=ns.device, timeout=ns.timeout, jobs=ns.jobs, base=ROOT)
    os.makedirs(ns.out, exist_ok=True)
    text = render(result, "text")
    with open(os.path.join(ns.out, f"probe_{ns.device}.txt"), "w", encoding="utf-8") as fh:
        fh.write(text)
    with open(os.path.join(ns.out, f"probe_{ns.device}.json"), "w", encoding="utf-8") as fh:
        fh.write(render(result, "json"))
    print(text)
    print(f"{len(targets)} targets on {ns.device} in {time.time() - start:.1f}s (-j {ns.jobs})")


if __name__ == "__main__":
    main()
