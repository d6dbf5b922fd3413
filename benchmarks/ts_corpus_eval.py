"""Precision/recall of the TorchScript construct/call rules (TS101-TS149) on a hand-written corpus.

    PYTHONPATH=$PWD python benchmarks/ts_corpus_eval.py [corpus_dir]

The corpus (benchmarks/ts_corpus/*.py) is small modules in the styles of detection post-processing,
tracking, planners and multi-task heads, written independently of the rules' own examples. Ground truth:
`torch.jit.script(Class())` on torch. Prediction: compilelint with `--select TS1` (TS101-TS149, not the
annotation/module-shape rules of other families), a class counted as flagged when a finding sits in one
of its methods. Prints one row per class and the totals.
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import warnings
from collections import defaultdict

from compilelint.config import Config
from compilelint.engine import lint


def main(corpus: str) -> None:
    import torch

    warnings.simplefilter("ignore")
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".py"))
    codes = [f"TS1{n:02d}" for n in range(1, 50)]
    result = lint(files, Config(select=codes, root=corpus), jobs=1)
    flagged: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in result.findings:
        if f.code in codes and f.context:
            flagged[(os.path.basename(f.path), f.context.split(".")[0])].append(f"{f.code}:{f.line}")
    tp = fp = fn = tn = 0
    for path in files:
        name = "tscorpus_" + os.path.basename(path)[:-3]
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        for cls_name, cls in vars(module).items():
            if not (inspect.isclass(cls) and issubclass(cls, torch.nn.Module) and cls.__module__ == name):
                continue
            try:
                torch.jit.script(cls())
                error = ""
            except Exception as err:  # ground truth
                error = next((ln for ln in str(err).splitlines() if ln.strip()), type(err).__name__)[:90]
            hits = flagged.get((os.path.basename(path), cls_name), [])
            fails = bool(error)
            tp += fails and bool(hits)
            fp += (not fails) and bool(hits)
            fn += fails and not hits
            tn += (not fails) and not hits
            verdict = {(True, True): "TP", (False, True): "FP", (True, False): "FN", (False, False): "TN"}[(fails, bool(hits))]
            print(f"{verdict}  {os.path.basename(path)}:{cls_name:24s} {' '.join(hits):28s} {error}")
    precision = tp / (tp + fp) if tp + fp else float("nan")
    recall = tp / (tp + fn) if tp + fn else float("nan")
    print(f"\nclasses={tp + fp + fn + tn} fail={tp + fn} TP={tp} FP={fp} FN={fn} TN={tn} "
          f"precision={precision:.3f} recall={recall:.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "ts_corpus"))
