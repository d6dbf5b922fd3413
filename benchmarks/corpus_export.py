"""EX rules vs real torch.export on every corpus module that builds a model with inputs.

Ground truth: `torch.export.export(Model(), first input set, strict=False)` (the 2.13 default), the error's
line in the module (observe.run_export: the last `File "...", line N` of the module in torch's message, else
the innermost frame of the module in the traceback). The EX rules predict one class of failure: torch's
data-dependent errors (GuardOnDataDependentSymNode, DataDependentOutputException: "Could not guard on
data-dependent expression", "Could not extract specialized integer"; "unhashable type: non-nested SymInt" for
a number read from tensor data used as a dict key). Other export failures (a `.numpy()`,
`data_ptr()`, ...) are listed apart and not scored.

Scored per module: predicted (any EX finding) vs a data-dependent failure; per line: the failing line carries
an EX finding. A module whose export fails first on another line (export stops at its first error) is "masked"
for findings after it, not a false positive.

    PYTHONPATH=$PWD python benchmarks/corpus_export.py
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPORA = [ROOT / "tests" / "corpus" / "dynamo", ROOT / "tests" / "corpus" / "trace",
           ROOT / "tests" / "corpus" / "torchscript", ROOT / "benchmarks" / "gb_heldout"]
# "unhashable type: non-nested SymInt": a number read from tensor data (`.tolist()`, `.item()`) used as a dict key.
DATA_DEPENDENT = ("GuardOnDataDependentSymNode", "DataDependentOutputException", "data-dependent",
                  "non-nested SymInt")


def corpus_files() -> list[Path]:
    return [p for d in CORPORA for p in sorted(d.glob("*.py")) if not p.name.startswith("_")]


def build(path: Path):  # noqa: ANN201
    """(model, first input set) by the corpus's conventions, or None when the module has no inputs."""
    import torch

    spec = importlib.util.spec_from_file_location(f"export_corpus_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    if hasattr(module, "make"):
        model, inputs = module.make()
    elif hasattr(module, "Model") and hasattr(module, "inputs"):
        model, inputs = module.Model(), module.inputs()
    elif hasattr(module, "Model") and hasattr(module, "example_inputs"):
        model, inputs = module.Model(), module.example_inputs()
    else:
        return None
    return (model, tuple(inputs[0])) if inputs else None


def ground_truth(path: Path) -> tuple[str, int | None, str]:
    """("ok" | "data-dependent" | "other" | "skip", line, error)."""
    from compilelint.runtime_probe import observe

    try:
        built = build(path)
    except Exception as err:  # noqa: BLE001 - a module that does not build is skipped
        return "skip", None, f"build: {type(err).__name__}: {err}"[:160]
    if built is None:
        return "skip", None, "no inputs"
    model, args = built
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = observe.run_export(model, args, strict=False,
                                    is_user_file=lambda f: os.path.exists(f) and os.path.samefile(f, path))
    if report.ok:
        return "ok", None, ""
    kind = "data-dependent" if any(k in report.error for k in DATA_DEPENDENT) else "other"
    return kind, report.lineno, report.error[:160]


def main() -> int:
    logging.disable(logging.WARNING)  # torch logs the partial graph of every failed export
    from compilelint.config import Config
    from compilelint.engine import lint

    files = corpus_files()
    t0 = time.perf_counter()
    truth = {p: ground_truth(p) for p in files}
    t1 = time.perf_counter()
    result = lint([str(p) for p in files], Config(select=["EX"], root=str(ROOT)), jobs=1)
    t2 = time.perf_counter()
    found: dict[Path, list] = defaultdict(list)
    for f in result.findings:
        found[Path(f.path).resolve()].append(f)

    scored = [p for p in files if truth[p][0] != "skip"]
    tp = fn = fp = tn = located = 0
    misses, fps, masked, others = [], [], [], []
    for p in scored:
        kind, line, error = truth[p]
        lines = sorted({f.line for f in found.get(p.resolve(), [])})
        rel = p.relative_to(ROOT)
        if kind == "data-dependent":
            if lines:
                tp += 1
                located += line in lines
                if line not in lines:
                    misses.append(f"  not located: {rel}: torch line {line} vs findings {lines}")
            else:
                fn += 1
                misses.append(f"  missed: {rel}:{line}: {error}")
        elif kind == "other":
            others.append(f"  {rel}:{line}: {error}" + (f"  (EX findings {lines})" if lines else ""))
            if lines and line is not None and all(ln > line for ln in lines):
                masked.append(str(rel))
            elif lines:
                fp += 1
                fps.append(f"  {rel}: EX at {lines}, export failed otherwise: {error}")
        elif lines:
            fp += 1
            fps.append(f"  {rel}: EX at {lines}, but torch.export succeeds")
        else:
            tn += 1
    print(f"corpus: {len(files)} modules, {len(scored)} with inputs; export (strict=False) fails data-dependent on "
          f"{tp + fn}, otherwise on {len(others)}; torch {t1 - t0:.1f}s, lint {t2 - t1:.1f}s (rules: EX)")
    other_flagged = sum(1 for p in scored if truth[p][0] == "other" and found.get(p.resolve()))
    print("\n                    torch: data-dependent fail   exports   other failure")
    print(f"  EX finding        {tp:26d}   {fp - (other_flagged - len(masked)):7d}   {other_flagged:13d}")
    print(f"  no EX finding     {fn:26d}   {tn:7d}   {len(others) - other_flagged:13d}")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"\nprecision {precision:.3f}   recall {recall:.3f}   located {located}/{tp} (an EX finding on torch's line)")
    if misses:
        print("\nmisses:")
        print("\n".join(misses))
    if fps:
        print("\nfalse positives:")
        print("\n".join(fps))
    if masked:
        print(f"\nmasked (export stops earlier, other cause): {', '.join(masked)}")
    if others:
        print("\nother export failures (not EX's claim):")
        print("\n".join(others))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
