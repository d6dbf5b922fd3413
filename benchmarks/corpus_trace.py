"""Trace-divergence corpus: ground truth from real torch.jit.trace vs the TR rules, at module level.

Each tests/corpus/trace/*.py defines `make() -> (module, [input sets])` and a `# EXPECT: diverges|stable`
label. For every module this script
  1. traces on the first input set and runs traced vs eager on every input set (ground truth: the traced
     output differs, or the traced call fails, on some input set);
  2. lints the file with the TR rules (static; never imports the file);
then prints precision/recall of "some TR finding" (errors+warnings; with notes; errors only) against the
ground truth, lists misses and false alarms, and checks the recorded labels.

    PYTHONPATH=$PWD python benchmarks/corpus_trace.py            # measure and report
    PYTHONPATH=$PWD python benchmarks/corpus_trace.py --record   # also rewrite the EXPECT labels from torch
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "trace"
LABEL = re.compile(r"^# EXPECT: (diverges|stable)\s*$", re.M)


def ground_truth(path: Path) -> tuple[bool, str]:
    import torch

    from compilelint.runtime_probe import observe

    spec = importlib.util.spec_from_file_location(f"corpus_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model, inputs = module.make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        report = observe.run_trace(model, inputs)
    if report.error:
        return True, f"trace failed: {report.error}"
    detail = (report.divergence or "agrees on all input sets").splitlines()[0][:160]
    if report.warnings:
        detail += f" ({len(report.warnings)} TracerWarning)"
    return report.diverged, detail


def lint_corpus(files: list[Path]) -> dict[str, list]:
    from compilelint.config import Config
    from compilelint.engine import lint

    result = lint([str(f) for f in files], Config(select=["TR"], root=str(ROOT)), jobs=1)
    by_file: dict[str, list] = defaultdict(list)
    for f in result.findings:
        by_file[Path(f.path).resolve().name].append(f)
    return by_file


def recorded_label(path: Path) -> str | None:
    m = LABEL.search(path.read_text())
    return m.group(1) if m else None


def write_label(path: Path, label: str) -> None:
    text = path.read_text()
    if LABEL.search(text):
        text = LABEL.sub(f"# EXPECT: {label}", text, count=1)
    else:
        lines = text.split("\n")
        # after the module docstring (first line of these files)
        end = next(i for i, ln in enumerate(lines) if ln.rstrip().endswith('"""'))
        lines.insert(end + 1, f"# EXPECT: {label}")
        text = "\n".join(lines)
    path.write_text(text)


def scores(truth: dict[str, bool], predicted: dict[str, bool]) -> tuple[float, float, int, int, int]:
    tp = sum(1 for k in truth if truth[k] and predicted[k])
    fp = sum(1 for k in truth if not truth[k] and predicted[k])
    fn = sum(1 for k in truth if truth[k] and not predicted[k])
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, tp, fp, fn


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", action="store_true", help="rewrite each file's EXPECT label from torch")
    args = parser.parse_args()
    files = sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))
    t0 = time.perf_counter()
    truth, details = {}, {}
    for path in files:
        truth[path.name], details[path.name] = ground_truth(path)
    t_torch = time.perf_counter() - t0
    t0 = time.perf_counter()
    findings = lint_corpus(files)
    t_lint = time.perf_counter() - t0

    print(f"{'module':32s} {'torch':9s} {'label':9s} TR findings (code:line, ! error, ? note)")
    label_mismatch = []
    for path in files:
        name = path.name
        got = "diverges" if truth[name] else "stable"
        label = recorded_label(path)
        if args.record and label != got:
            write_label(path, got)
            label = got
        if label != got:
            label_mismatch.append(name)
        mark = {"error": "!", "warning": "", "note": "?"}
        codes = ", ".join(f"{f.code}:{f.line}{mark.get(f.severity, '')}" for f in findings.get(name, []))
        print(f"{name:32s} {got:9s} {label or '-':9s} {codes}")
    print()
    print(f"modules: {len(files)}  diverging: {sum(truth.values())}  stable: {len(files) - sum(truth.values())}")
    for title, pred in (
        ("TR error+warning", {k: any(f.severity in ("error", "warning") for f in findings.get(k, [])) for k in truth}),
        ("any TR (+notes)", {k: bool(findings.get(k)) for k in truth}),
        ("TR errors only", {k: any(f.severity == "error" for f in findings.get(k, [])) for k in truth}),
    ):
        p, r, tp, fp, fn = scores(truth, pred)
        print(f"{title:16s} precision {p:.3f}  recall {r:.3f}  (tp={tp} fp={fp} fn={fn})")
        for k in truth:
            if truth[k] and not pred[k]:
                print(f"    miss:        {k}: {details[k]}")
            if pred[k] and not truth[k]:
                print(f"    false alarm: {k}: {[f.code for f in findings.get(k, [])]} ({details[k]})")
    print(f"time: torch {t_torch:.1f}s, lint {t_lint:.2f}s")
    if label_mismatch:
        print(f"LABELS DISAGREE WITH TORCH: {label_mismatch}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
