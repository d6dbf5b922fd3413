"""Issue-5 corpus: lint vs real torch.compile on tests/corpus/dynamo/*.py, scored on graph-break LINES.

Ground truth comes from real compiles (backend="eager") over each module's input sets, read from
torch's graph-break log records (compilelint.runtime_probe.observe.run_dynamo): one (file, line, GB id)
per break, plus frames Dynamo skipped whole and recompile records. Each corpus file records its break
lines as trailing `# BREAK: GBxxxx` comments; this script checks them against the compile, lints the
corpus (GB + RC rules), and prints precision and recall of GB findings on break lines, with every
miss and false positive.

    PYTHONPATH=$PWD python benchmarks/corpus_dynamo.py            # compile, verify markers, score
    PYTHONPATH=$PWD python benchmarks/corpus_dynamo.py --record   # rewrite the markers from the compiles
    PYTHONPATH=$PWD python benchmarks/corpus_dynamo.py --static   # score against markers only (no torch)
    ... --only NAME [NAME ...]                                    # a subset of corpus files (stems)
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus" / "dynamo"
MARK = re.compile(r"\s*# BREAK: (?P<ids>GB\d{4}(?: GB\d{4})*)\s*$")


def corpus_files(only: list[str] | None = None, corpus: Path | None = None) -> list[Path]:
    files = sorted(p for p in (corpus or CORPUS).glob("*.py") if not p.name.startswith("_"))
    if only:
        files = [p for p in files if p.stem in only]
    return files


def recorded_breaks(path: Path) -> dict[int, list[str]]:
    """{line: [GB ids]} from the file's `# BREAK:` markers."""
    out = {}
    for i, line in enumerate(path.read_text().splitlines(), 1):
        m = MARK.search(line)
        if m:
            out[i] = m.group("ids").split()
    return out


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


def _same(a: str, b: Path) -> bool:
    return os.path.exists(a) and os.path.samefile(a, b)


def observe(path: Path) -> dict:
    """Compile the module's Model over its input sets; breaks in this file, skipped frames, recompiles."""
    from compilelint.runtime_probe import observe as obs

    name = f"corpus_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    model = module.Model()
    input_sets = module.inputs()
    report = obs.run_dynamo(model, input_sets)
    here: dict[int, list[str]] = {}
    elsewhere = []
    for b in report.breaks:
        lineno = b.lineno if os.path.exists(b.filename) and os.path.samefile(b.filename, path) else None
        if lineno is None:
            # A break inside library code that Dynamo inlined (e.g. json's encoder): the user line is the
            # innermost frame of this file in the break's stack.
            frames = [int(m.group(2)) for m in _FRAME.finditer(b.message) if _same(m.group(1), path)]
            lineno = frames[-1] if frames else None
        if lineno is not None:
            ids = here.setdefault(lineno, [])
            for g in b.gb_ids[:1]:
                if g not in ids:
                    ids.append(g)
        else:
            elsewhere.append((b.filename, b.lineno, b.gb_ids))
    # Each recompile record reaches two of the collector's loggers (torch._dynamo and torch._dynamo.guards).
    return {"breaks": here, "elsewhere": elsewhere, "skipped": report.skipped_frames,
            "recompiles": len(report.recompiles), "calls": len(input_sets), "error": report.error}


def write_markers(path: Path, breaks: dict[int, list[str]]) -> None:
    lines = path.read_text().splitlines()
    out = []
    for i, line in enumerate(lines, 1):
        line = MARK.sub("", line).rstrip()
        if i in breaks:
            line = f"{line}  # BREAK: {' '.join(breaks[i])}"
        out.append(line)
    path.write_text("\n".join(out) + "\n")


def lint_corpus(files: list[Path]) -> dict[Path, list]:
    from compilelint.config import Config
    from compilelint.engine import lint

    config = Config(select=["GB", "RC"], root=str(files[0].parent if files else CORPUS))
    result = lint([str(p) for p in files], config, jobs=1)
    by_file: dict[Path, list] = {p.resolve(): [] for p in files}
    for f in result.findings:
        by_file.setdefault(Path(f.path).resolve(), []).append(f)
    return by_file


def score(files: list[Path], truth: dict[Path, dict[int, list[str]]], findings: dict[Path, list]) -> dict:
    from compilelint.rules.registry import all_rules

    rules = all_rules()
    tp, fp, fn = [], [], []
    for p in files:
        gb = [f for f in findings.get(p.resolve(), []) if rules.get(f.code) and rules[f.code].family == "graph-break"]
        predicted: dict[int, list] = {}
        for f in gb:
            predicted.setdefault(f.line, []).append(f)
        actual = truth[p]
        for line, fs in sorted(predicted.items()):
            (tp if line in actual else fp).append((p.name, line, [f"{f.code}/{f.gb_id}" for f in fs], actual.get(line)))
        for line, ids in sorted(actual.items()):
            if line not in predicted:
                fn.append((p.name, line, ids))
    precision = len(tp) / (len(tp) + len(fp)) if tp or fp else 1.0
    recall = len(tp) / (len(tp) + len(fn)) if tp or fn else 1.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": precision, "recall": recall}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true", help="rewrite # BREAK: markers from the compiles")
    ap.add_argument("--static", action="store_true", help="no compiles: score against the recorded markers")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="another directory of corpus modules")
    args = ap.parse_args(argv)
    files = corpus_files(args.only, args.corpus.resolve())
    print(f"corpus: {len(files)} modules in {args.corpus}")
    truth: dict[Path, dict[int, list[str]]] = {}
    mismatches = []
    observed = {}
    if args.static:
        truth = {p: recorded_breaks(p) for p in files}
    else:
        import warnings

        warnings.simplefilter("ignore")
        t0 = time.time()
        for p in files:
            try:
                o = observe(p)
            except Exception as err:  # a module that fails to build is a corpus bug: report it
                print(f"  ERROR building {p.name}: {type(err).__name__}: {err}")
                o = {"breaks": {}, "elsewhere": [], "skipped": 0, "recompiles": 0, "error": str(err)}
            observed[p] = o
            truth[p] = o["breaks"]
            rec = recorded_breaks(p)
            if args.record:
                write_markers(p, o["breaks"])
            elif rec != o["breaks"]:
                mismatches.append((p.name, rec, o["breaks"]))
            flag = []
            if o["skipped"]:
                flag.append(f"skipped_frames={o['skipped']}")
            if o["recompiles"]:
                flag.append(f"recompiles={o['recompiles']}")
            if o["elsewhere"]:
                flag.append(f"breaks_elsewhere={o['elsewhere']}")
            if o["error"]:
                flag.append(f"error={o['error']}")
            print(f"  {p.stem:28s} breaks={sorted((l, i) for l, i in o['breaks'].items())} {' '.join(flag)}")
        print(f"compiled {len(files)} modules in {time.time() - t0:.1f}s")
        if mismatches:
            print(f"MARKERS DIFFER FROM THE COMPILE in {len(mismatches)} files (re-run with --record after checking):")
            for name, rec, obs_ in mismatches:
                print(f"  {name}: recorded={rec} observed={obs_}")
    n_break_files = sum(1 for p in files if truth[p])
    n_lines = sum(len(truth[p]) for p in files)
    print(f"ground truth: {n_lines} break lines in {n_break_files} of {len(files)} modules")
    findings = lint_corpus(files)
    s = score(files, truth, findings)
    print(f"GB findings on break lines: TP={len(s['tp'])} FP={len(s['fp'])} FN={len(s['fn'])}")
    print(f"precision={s['precision']:.3f} recall={s['recall']:.3f}")
    for name, line, codes, _ in s["fp"]:
        print(f"  FALSE POSITIVE {name}:{line} {codes}")
    for name, line, ids in s["fn"]:
        print(f"  MISS {name}:{line} {ids}")
    # Recompile rules: informational (the corpus input sets keep shapes and values mostly fixed).
    rc = [(p.name, f.line, f.code) for p in files for f in findings.get(p.resolve(), []) if f.code.startswith("RC")]
    print(f"RC findings: {len(rc)} {rc}")
    if observed:
        rec = {p.name: observed[p]["recompiles"] for p in files if observed[p]["recompiles"]}
        print(f"modules that recompiled over their input sets (count): {rec}")
        # A recompile hazard, as the RC rules claim it: the module recompiles on (nearly) every new input set,
        # i.e. at least calls - 2 recompiles over at least 4 calls (one-off recompiles, such as the one before
        # automatic dynamic shapes, are not hazards).
        hazard = {p.name for p in files
                  if observed[p]["calls"] >= 4 and observed[p]["recompiles"] >= max(2, observed[p]["calls"] - 2)}
        flagged = sorted({name for name, _, _ in rc})
        hit = [n for n in flagged if n in hazard]
        print(f"RC per module: flagged={len(flagged)} flagged_and_recompiling_per_call={len(hit)} "
              f"recompiling_per_call={len(hazard)}")
        if flagged:
            print(f"  RC precision={len(hit) / len(flagged):.3f}  recall={len(hit) / len(hazard) if hazard else 1.0:.3f}")
        for n in flagged:
            if n not in hazard:
                print(f"  RC FLAGGED, NO PER-CALL RECOMPILE {n} (recompiles={rec.get(n, 0)})")
        for n in sorted(hazard - set(flagged)):
            print(f"  RC MISS {n} (recompiles={rec.get(n)})")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
