"""GB rules against real torch.compile on a held-out set of modules (benchmarks/gb_heldout/*.py).

Each module defines `Model` (built with no arguments) and `inputs()` (a list of argument tuples).
Ground truth: a real `torch.compile(backend="eager")` over the input sets, read from torch's
graph-break log records (compilelint.runtime_probe.observe.run_dynamo); a break inside library code
counts on the deepest line of the module in the break's user traceback. Then the GB rules lint the
same files, and precision/recall are scored on break LINES. Also: which modules Dynamo skipped whole
(GB7000) and whether GB410 predicted it.

    PYTHONPATH=$PWD python benchmarks/gb_heldout.py [--only NAME ...] [--dir DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _same(a: str, b: Path) -> bool:
    return os.path.exists(a) and os.path.samefile(a, b)


def observe(path: Path) -> tuple[dict[int, list[str]], int, str | None]:
    from compilelint.runtime_probe import observe as obs

    name = f"gbheld_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    report = obs.run_dynamo(module.Model(), module.inputs())
    lines: dict[int, list[str]] = {}
    for b in report.breaks:
        line = b.lineno if _same(b.filename, path) else next(
            (ln for f, ln in reversed(b.user_frames) if _same(f, path)), None)
        if line is not None:
            ids = lines.setdefault(line, [])
            ids.extend(g for g in b.gb_ids if g not in ids)
    return lines, report.skipped_frames, report.error


def main(argv: list[str] | None = None) -> int:
    from compilelint.config import Config
    from compilelint.engine import lint

    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=str(ROOT / "benchmarks" / "gb_heldout"))
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args(argv)
    files = sorted(p for p in Path(args.dir).glob("*.py") if not p.name.startswith("_"))
    if args.only:
        files = [p for p in files if p.stem in args.only]
    warnings.simplefilter("ignore")
    t0 = time.time()
    truth = {}
    for p in files:
        lines, skipped, error = observe(p)
        truth[p] = (lines, skipped)
        extra = f" skipped_frames={skipped}" if skipped else ""
        extra += f" error={error}" if error else ""
        print(f"  {p.stem:24s} breaks={sorted(lines.items())}{extra}")
    print(f"compiled {len(files)} modules in {time.time() - t0:.1f}s")
    result = lint([str(p) for p in files], Config(select=["GB"], root=args.dir), jobs=1)
    found: dict[Path, dict[int, list[str]]] = {p.resolve(): {} for p in files}
    for f in result.findings:
        found.setdefault(Path(f.path).resolve(), {}).setdefault(f.line, []).append(f"{f.code}/{f.gb_id}/{f.severity}")
    tp = fp = fn = 0
    strict = [0, 0, 0]  # tp, fp, fn counting only warning/error findings (notes: breaks in rarely taken branches)
    loop_ok = loop_miss = loop_fp = 0
    for p in files:
        actual, skipped = truth[p]
        predicted = found[p.resolve()]
        ranked = {ln: cs for ln, cs in predicted.items() if any(not c.endswith("/note") for c in cs)}
        strict[0] += sum(1 for ln in ranked if ln in actual)
        strict[1] += sum(1 for ln in ranked if ln not in actual)
        strict[2] += sum(1 for ln in actual if ln not in ranked)
        for line, codes in sorted(predicted.items()):
            if line in actual:
                tp += 1
            else:
                fp += 1
                print(f"  FALSE POSITIVE {p.name}:{line} {codes}")
        for line, ids in sorted(actual.items()):
            if line not in predicted:
                fn += 1
                print(f"  MISS {p.name}:{line} {ids}")
        predicted_skip = any(c.startswith("GB410/") for cs in predicted.values() for c in cs)
        actual_skip = any("GB7000" in ids for ids in actual.values())
        loop_ok += predicted_skip and actual_skip
        loop_miss += actual_skip and not predicted_skip
        loop_fp += predicted_skip and not actual_skip
    n_lines = sum(len(truth[p][0]) for p in files)
    print(f"ground truth: {n_lines} break lines in {sum(1 for p in files if truth[p][0])} of {len(files)} modules")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"GB findings on break lines: TP={tp} FP={fp} FN={fn} precision={precision:.3f} recall={recall:.3f}")
    sp = strict[0] / (strict[0] + strict[1]) if strict[0] + strict[1] else 1.0
    sr = strict[0] / (strict[0] + strict[2]) if strict[0] + strict[2] else 1.0
    print(f"  warning/error findings only: TP={strict[0]} FP={strict[1]} FN={strict[2]} precision={sp:.3f} recall={sr:.3f}")
    print(f"GB410 (whole frame skipped, GB7000): predicted={loop_ok} missed={loop_miss} false={loop_fp}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
