"""Precision and recall of the TorchScript (TS) and annotation (TA) rules on tests/corpus/torchscript.

Ground truth comes from real torch: a module FAILS when `torch.jit.script(Model())` raises, or when the
scripted module raises on one of `example_inputs()` (failures TorchScript only shows at call time, such
as an unannotated int argument typed Tensor). A module is PREDICTED to fail iff compilelint reports at
least one TS/TA finding in its file that applies to TorchScript (`--targets torchscript`).

    PYTHONPATH=$PWD python benchmarks/corpus_torchscript.py                  # table + misses + false positives
    PYTHONPATH=$PWD python benchmarks/corpus_torchscript.py --write-labels   # (re)write the `# EXPECT:` headers

The `# EXPECT: fails|scripts` header of each corpus file records the ground truth, so the test suite
(tests/test_corpus_torchscript.py) can check the linter against it without scripting every module.
"""

from __future__ import annotations

import argparse
import re
import importlib.util
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "torchscript"
SELECT = ["TS", "TA"]
LABEL = "# EXPECT: "


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))


def read_label(path: Path) -> str | None:
    first = path.read_text().splitlines()[0] if path.read_text() else ""
    return first[len(LABEL):].split()[0] if first.startswith(LABEL) else None


def write_label(path: Path, label: str) -> None:
    lines = path.read_text().splitlines(keepends=True)
    if lines and lines[0].startswith(LABEL):
        lines = lines[1:]
    path.write_text(f"{LABEL}{label}\n" + "".join(lines))


_AT = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def error_line(path: Path, error: Exception) -> int | None:
    """The line of `path` TorchScript blames (its last frame in that file), if any."""
    hits = [int(m.group("line")) for m in _AT.finditer(str(error)) if Path(m.group("file")).name == path.name]
    return hits[-1] if hits else None


def ground_truth(path: Path) -> tuple[bool, str]:
    """(fails, first line of the error) by scripting Model() and calling it on example_inputs()."""
    import torch

    name = f"_corpus_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)  # an import error is a corpus bug: let it raise
    model = module.Model()
    model.eval()
    inputs = module.example_inputs() if hasattr(module, "example_inputs") else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scripted = torch.jit.script(model)
        except Exception as err:  # noqa: BLE001 - any scripting error is the verdict
            return True, f"script: {type(err).__name__}: {_first_line(err)} [line {error_line(path, err)}]"
        for args in inputs:
            try:
                scripted(*args)
            except Exception as err:  # noqa: BLE001
                return True, f"call: {type(err).__name__}: {_first_line(err)} [line {error_line(path, err)}]"
    return False, ""


def _first_line(err: Exception) -> str:
    return next((ln.strip() for ln in str(err).splitlines() if ln.strip()), "")[:160]


def lint_corpus(files: list[Path]) -> dict[Path, list]:
    from compilelint.config import Config
    from compilelint.engine import lint

    # targets=["torchscript"]: a finding counts only where a TorchScript compile path reaches it (a rule that
    # also targets export may report inside a @torch.jit.ignore method, which scripting never compiles).
    result = lint([str(p) for p in files], Config(select=SELECT, root=str(CORPUS), targets=["torchscript"]), jobs=1)
    found: dict[Path, list] = {p: [] for p in files}
    for f in result.findings:
        found.setdefault(Path(f.path).resolve(), []).append(f)
    return {p: found.get(p.resolve(), []) for p in files}


def confusion(truth: dict[Path, bool], predicted: dict[Path, bool]) -> dict[str, int]:
    c = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for p, fails in truth.items():
        pred = predicted[p]
        c["tp" if fails and pred else "fn" if fails else "fp" if pred else "tn"] += 1
    return c


def scores(c: dict[str, int]) -> tuple[float, float]:
    precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
    recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
    return precision, recall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-labels", action="store_true", help="rewrite each file's `# EXPECT:` header")
    args = parser.parse_args()
    files = corpus_files()
    t0 = time.perf_counter()
    truth: dict[Path, bool] = {}
    errors: dict[Path, str] = {}
    for p in files:
        truth[p], errors[p] = ground_truth(p)
    t1 = time.perf_counter()
    findings = lint_corpus(files)
    t2 = time.perf_counter()
    predicted = {p: bool(findings[p]) for p in files}
    c = confusion(truth, predicted)
    precision, recall = scores(c)
    stale = [p for p in files if read_label(p) not in (None, "fails" if truth[p] else "scripts")]
    if args.write_labels:
        for p in files:
            write_label(p, "fails" if truth[p] else "scripts")

    print(f"corpus: {len(files)} modules, {sum(truth.values())} fail under torch {__import__('torch').__version__}, "
          f"{len(files) - sum(truth.values())} script and run")
    print(f"ground truth {t1 - t0:.1f}s, lint {t2 - t1:.1f}s (rules: {', '.join(SELECT)})\n")
    print("                    torch fails   torch scripts")
    print(f"  predicted fails   {c['tp']:>11}   {c['fp']:>13}")
    print(f"  predicted clean   {c['fn']:>11}   {c['tn']:>13}\n")
    print(f"precision {precision:.3f}   recall {recall:.3f}\n")
    print("misses (torch fails, no TS/TA finding):")
    for p in files:
        if truth[p] and not predicted[p]:
            print(f"  {p.name}: {errors[p]}")
    print("\nfalse positives (module scripts and runs, findings reported):")
    for p in files:
        if not truth[p]:
            for f in findings[p]:
                print(f"  {p.name}:{f.line} {f.code} {f.message[:110]}")
    print("\nfindings on failing modules:")
    for p in files:
        if truth[p] and findings[p]:
            codes = ", ".join(sorted({f"{f.code}@{f.line}" for f in findings[p]}))
            print(f"  {p.name}: {codes}  | torch: {errors[p][:90]}")
    blamed = [p for p in files if truth[p] and findings[p] and "[line None]" not in errors[p]]
    located = [p for p in blamed if any(f"[line {f.line}]" in errors[p] or
                                        f.line <= int(errors[p].rsplit("[line ", 1)[1].rstrip("]")) <= f.end_line
                                        for f in findings[p])]
    print(f"\nlocation: on {len(located)}/{len(blamed)} detected failing modules where TorchScript names a line of "
          f"the module, a finding covers that line")
    for p in blamed:
        if p not in located:
            print(f"  not located: {p.name}: torch {errors[p].rsplit('[', 1)[1]} vs findings "
                  f"{sorted({f.line for f in findings[p]})}")
    if stale:
        print("\nSTALE LABELS (header disagrees with torch):", ", ".join(p.name for p in stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
