"""EX rules vs real torch.export on every corpus module that builds a model with inputs.

Ground truth: `torch.export.export(Model(), first input set, strict=False)` (the 2.13 default), the error's
line in the module (observe.run_export: the last `File "...", line N` of the module in torch's message, else
the innermost frame of the module in the traceback). Each EX rule claims a class of failure, named by the
strings its `torch_error` expects in torch's message: EX701-EX703 torch's data-dependent errors
(GuardOnDataDependentSymNode, "Could not guard on data-dependent expression", "Could not extract specialized
integer"; "unhashable type: non-nested SymInt"), EX704 `.numpy()`, EX705 a data pointer, EX706 a format spec.
Failures no rule claims are listed apart and not scored.

Scored per module: predicted (a finding of a rule that claims torch's error) vs that failure; per line: a
finding of such a rule on the failing line. A finding of any other EX rule is a false positive, unless all of
them sit after the line where export failed (export stops at its first error): "masked".

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


def claims() -> dict[str, tuple[str, ...]]:
    """EX code -> the strings one of which torch's error must contain for the code to have predicted it."""
    from compilelint.rules.registry import all_rules

    return {code: cls.torch_error for code, cls in all_rules().items() if cls.family == "export"}


def ground_truth(path: Path, claimed: dict[str, tuple[str, ...]]) -> tuple[str, int | None, str, set[str]]:
    """("ok" | "fail" | "skip", line, error, the EX codes whose claim the error matches)."""
    from compilelint.runtime_probe import observe

    try:
        built = build(path)
    except Exception as err:  # noqa: BLE001 - a module that does not build is skipped
        return "skip", None, f"build: {type(err).__name__}: {err}"[:160], set()
    if built is None:
        return "skip", None, "no inputs", set()
    model, args = built
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = observe.run_export(model, args, strict=False,
                                    is_user_file=lambda f: os.path.exists(f) and os.path.samefile(f, path))
    if report.ok:
        return "ok", None, "", set()
    codes = {code for code, texts in claimed.items() if any(t in report.error for t in texts)}
    return "fail", report.lineno, report.error[:160], codes


def main() -> int:
    logging.disable(logging.WARNING)  # torch logs the partial graph of every failed export
    from compilelint.config import Config
    from compilelint.engine import lint

    claimed = claims()
    files = corpus_files()
    t0 = time.perf_counter()
    truth = {p: ground_truth(p, claimed) for p in files}
    t1 = time.perf_counter()
    result = lint([str(p) for p in files], Config(select=["EX"], root=str(ROOT)), jobs=1)
    t2 = time.perf_counter()
    found: dict[Path, list] = defaultdict(list)
    for f in result.findings:
        found[Path(f.path).resolve()].append(f)

    scored = [p for p in files if truth[p][0] != "skip"]
    tp = fn = fp = tn = located = lineless = 0
    per_class: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # class -> [predicted, failures]
    misses, fps, masked, others = [], [], [], []
    for p in scored:
        kind, line, error, codes = truth[p]
        findings = found.get(p.resolve(), [])
        rel = p.relative_to(ROOT)
        right = sorted({f.line for f in findings if f.code in codes})
        wrong = sorted({(f.line, f.code) for f in findings if f.code not in codes})
        if codes:
            label = "/".join(sorted(codes))
            if "EX701" in codes:  # the rules that share torch's data-dependent errors
                label = f"data-dependent ({label})"
            per_class[label][1] += 1
            if right:
                tp += 1
                per_class[label][0] += 1
                if line is None:  # torch names no line (an error about the whole traced program)
                    lineless += 1
                else:
                    located += line in right
                    if line not in right:
                        misses.append(f"  not located: {rel}: torch line {line} vs findings {right}")
            else:
                fn += 1
                misses.append(f"  missed: {rel}:{line}: {error}")
        elif kind == "fail":
            others.append(f"  {rel}:{line}: {error}" + (f"  (EX findings {wrong})" if wrong else ""))
        if wrong:
            if kind == "fail" and line is not None and all(ln > line for ln, _ in wrong):
                masked.append(str(rel))
            else:
                fp += 1
                why = "torch.export succeeds" if kind == "ok" else f"export failed otherwise: {error}"
                fps.append(f"  {rel}: {wrong}, but {why}")
        elif kind == "ok":
            tn += 1
    failing = sum(1 for p in scored if truth[p][0] == "fail")
    print(f"corpus: {len(files)} modules, {len(scored)} with inputs; export (strict=False) fails on {failing} "
          f"({tp + fn} claimed by an EX rule); torch {t1 - t0:.1f}s, lint {t2 - t1:.1f}s (rules: EX)")
    print("\nper claimed failure class: predicted / failures")
    for label, (hit, total) in sorted(per_class.items()):
        print(f"  {label:28s} {hit:3d} / {total}")
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    print(f"\nmodules exporting fine with no EX finding: {tn}")
    print(f"precision {precision:.3f}   recall {recall:.3f}   located {located}/{tp - lineless} (a claiming finding on "
          f"torch's line; {lineless} more failures name no line)")
    if misses:
        print("\nmisses:")
        print("\n".join(misses))
    if fps:
        print("\nfalse positives:")
        print("\n".join(fps))
    if masked:
        print(f"\nmasked (export stops earlier, other cause): {', '.join(masked)}")
    if others:
        print("\nexport failures no EX rule claims:")
        print("\n".join(others))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
