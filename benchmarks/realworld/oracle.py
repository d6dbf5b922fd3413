"""The real-world oracle: what real torch does with each registry model, and where (README.md).

    python benchmarks/realworld/oracle.py [--only kornia_models:make_loftr ...] [--library kornia] [-j 2]

Per model, in child processes (the parent imports neither torch nor the libraries):
  1. `compilelint probe`'s child with the library as scope (--scope PACKAGE) and no one-line re-checks: an eager
     run of the five input sets with line coverage, torch.compile (backend "eager") over at least CALLS calls
     with torch's graph-break and recompile logs, torch.jit.trace on set 0 checked against eager on the others,
     torch.export.export on set 0;
  2. script_classes.py: each library class of the model scripted on its own, in its own process.
Raw events, each with `scorable` and `why_not` (the rule in README.md, implemented once in `classify`), go to
events.jsonl beside this file, one model record first (versions, status, coverage), then its events. A model
re-run replaces its own lines; the others stay.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import json
import os
import platform
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from benchmarks.realworld.registry import Entry, entries  # noqa: E402
from compilelint.runtime_probe.probe import probe_one  # noqa: E402
from compilelint.runtime_probe.runner import run_in_child  # noqa: E402
from compilelint.runtime_probe.scope import FileScope, never_user, resolve  # noqa: E402

EVENTS = os.path.join(HERE, "events.jsonl")
CALLS = 8  # compiled calls per model: the five input sets, then again from the first
CHECKS = ["dynamo", "recompile", "trace", "export"]
TIMEOUT_S = 900.0
MEMORY_MB = 8192

# Why an event is not scored (README.md, "What is scored"). Decided from the event alone, never from a rule.
NO_LINE = "no line: torch names no line for it"
INSIDE_TORCH = "inside torch: torch's own code reported it (pinned to the library line that called it)"
OUTSIDE = "outside the library: no frame of the library's own files"
ORACLE_CODE = "oracle code: the registry's factory, not the library"
CALLED_SIGNATURE = ("run time: a line of the signature of a function on the TorchScript traceback of a scripted "
                    "class that failed when called (pinned there from the line torch names)")
AUTOMATIC_DYNAMIC = "automatic dynamic: the first change of an input size (one recompile, then dynamic)"
ZERO_ONE = "0/1 specialisation: an input size of 1 (or 0), which Dynamo always specialises, changed"
AUTOMATIC_DYNAMIC_NUMBER = "automatic dynamic: the first change of an int or float input (one recompile, then dynamic)"
# A number's value guard (`num_nodes == 10`, `data['hw1_c'][0] == 8`, `___stack0 == 0.5`); not a length, not a
# module attribute (ints on modules are specialised on every value)
_NUMBER_GUARD = re.compile(r"^(?!len\(|self[.\[])(?P<source>[A-Za-z_][\w.]*(?:\[[^\]]+\])*) == -?\d+(?:\.\d+)?$")
TORCH_SIZE_GUARD = ("inside torch: a guard on input sizes that torch's own kernels added (CPU convolution's "
                    "backend choice), no library line")
# A guard over input sizes and numbers only (`24*x.size()[3]*x.size()[2] <= 20480`), and a range guard of one size.
_SIZES_ONLY = re.compile(r"^(?:[\w\[\]'.]+\.size\(\)\[\d+\]|max|min|\d+|[-+*/%<>=!(), ])+$")
_RANGE_GUARD = re.compile(r"^(?P<low>\d+) <= (?P<tensor>[\w\[\]'.]+)\.size\(\)\[(?P<index>\d+)\]"
                          r"(?: <= (?P<high>\d+))?$")
_SIZE_GUARD = re.compile(r"tensor '(?P<tensor>.+)' (?:size|stride) mismatch at index (?P<index>\d+)\. "
                         r"expected (?P<expected>\d+), actual (?P<actual>\d+)")


class Paths:
    """File names as events store them: relative to the folder holding the library's package."""

    def __init__(self, entry: Entry, scope_dirs: list[str]) -> None:
        self.entry = entry
        self.scope = FileScope(scope_dirs)
        self.roots = [os.path.dirname(d.rstrip(os.sep)) for d in scope_dirs if d.endswith(os.sep)]
        self.package_dirs = [d.rstrip(os.sep) for d in scope_dirs if d.endswith(os.sep)]
        self.torch = never_user()
        self.factory_file = os.path.realpath(os.path.join(ROOT, entry.path))

    def in_library(self, path: str | None) -> bool:
        """A file of the library's own package (not the factory, not code it generates elsewhere at run time)."""
        if not path:
            return False
        real = os.path.realpath(path)
        return real != self.factory_file and any(real.startswith(os.path.join(r, "")) for r in self.package_dirs)

    def is_torch(self, path: str | None) -> bool:
        return bool(path) and os.path.realpath(path).startswith(self.torch)

    def rel(self, path: str | None) -> str | None:
        if not path:
            return None
        real = os.path.realpath(path)
        if real == self.factory_file:
            return self.entry.path
        for root in self.roots:
            if real.startswith(os.path.join(root, "")):
                return os.path.relpath(real, root)
        marker = f"{os.sep}site-packages{os.sep}"
        return real.split(marker, 1)[1] if marker in real else real


def _ranges(lines: list[int]) -> str:
    out: list[str] = []
    for n in sorted(set(lines)):
        if out and "-" not in out[-1] and int(out[-1]) == n - 1:
            out[-1] = f"{out[-1]}-{n}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == n - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ",".join(out)


def classify(paths: Paths, file: str | None, line: int | None, reported_at: str | None = None) -> str | None:
    """None when the event is scorable, else why not (README.md)."""
    if not file or not line:
        return NO_LINE
    if os.path.realpath(file) == paths.factory_file:
        return ORACLE_CODE
    if not paths.in_library(file):
        return OUTSIDE
    if reported_at and paths.is_torch(reported_at.rsplit(":", 1)[0]):
        return INSIDE_TORCH
    return None


def _event(paths: Paths, target: str, kind: str, file: str | None, line: int | None, *, message: str = "",
           reported_at: str | None = None, why_not: str | None = "", **extra: object) -> dict:
    reason = classify(paths, file, line, reported_at) if why_not == "" else why_not
    rec = {"record": "event", "model": paths.entry.name, "library": paths.entry.library, "target": target,
           "kind": kind, "file": paths.rel(file), "line": line, "message": message[:400],
           "scorable": reason is None, "why_not": reason}
    if reported_at:
        where, _, n = reported_at.rpartition(":")
        rec["reported_at"] = f"{paths.rel(where)}:{n}"
    rec.update(extra)
    return rec


def _dynamo_events(paths: Paths, dyn: dict) -> list[dict]:
    out = []
    for b in dyn.get("breaks", []):
        kind = "frame_skipped" if b["frame_skipped"] else "graph_break"
        out.append(_event(paths, "dynamo", kind, b["file"], b["line"], message=b["message"].splitlines()[0] if
                          b["message"] else "", reported_at=b.get("reported_at"), gb_ids=b["gb_ids"]))
    if dyn.get("error"):
        frames = [(f, n) for f, n in dyn.get("error_frames", []) if paths.in_library(f)]
        file, line = frames[-1] if frames else (None, None)
        out.append(_event(paths, "dynamo", "dynamo_error", file, line, message=dyn["error"]))
    by_frame: dict[tuple, list[dict]] = {}
    for r in dyn.get("recompiles", []):
        by_frame.setdefault((r["file"], r["line"]), []).append(r)
    for (file, line), recs in by_frame.items():
        changed: set[tuple[str, str]] = set()  # (tensor, dimension) whose size changed before, in this frame
        for i, r in enumerate(recs):
            lines = [[paths.rel(f), n] for f, n in r["locations"] if paths.in_library(f)]
            out.append(_event(paths, "recompile", "recompile", file, line, message=(r["reasons"] or [""])[0],
                              why_not=recompile_policy(r["reasons"], changed, lines), function=r["function"],
                              reasons=r["reasons"], nth=i + 1, frame_recompiles=len(recs), guard_lines=lines))
    return out


def recompile_policy(reasons: list[str], changed: set[tuple[str, str]], guard_lines: list | None = None) -> str:
    """"" (scorable) or why not, for one recompile of a frame whose earlier size changes are `changed` (updated).

    `reasons` holds one failed guard per cache entry, newest first; the recompile happens because every entry
    failed, and the newest entry is the most general one (each compile makes dynamic what changed before), so
    its failed guard says why. Automatic dynamic makes a dimension of an input dynamic the first time its size
    changes (one recompile per dimension), and an int or float input the first time its value changes
    (`n == 10`: one recompile, then a symbol; a list's length and a module's int attribute are guarded on every
    value), and sizes of 0 and 1 are always specialised: a dynamic entry carries the range guard
    `2 <= x.size()[0]`, which a size of 1 fails. Torch's own kernels add guards over input sizes too (no library
    line in the guard's provenance: CPU convolution picks its backend by batch, `2 <= x.size()[0] <= 15`, and by
    input area, `... <= 20480`). Those are torch's policy meeting the oracle's varied inputs; a size or number
    that changed before and is static again in the newest entry was specialised by the code (a loop over the
    batch, an op that takes ints), and a parameter's or buffer's shape is static by design (instances of one
    class with other shapes recompile per instance): those are scorable."""
    if not reasons:
        return ""
    actual = {(m.group("tensor"), m.group("index")): int(m.group("actual"))
              for m in map(_SIZE_GUARD.match, reasons) if m}
    why = _newest_cause(reasons[0], changed, actual, guard_lines)
    for g in reasons:
        number, size = _NUMBER_GUARD.match(g), _SIZE_GUARD.match(g)
        if number:
            changed.add((number.group("source"), "value"))
        elif size:
            changed.add((size.group("tensor"), size.group("index")))
    return why


def _newest_cause(g: str, changed: set[tuple[str, str]], actual: dict, guard_lines: list | None) -> str:
    """Why the newest cache entry failed, when that is torch's policy; "" when the code made it so."""
    number = _NUMBER_GUARD.match(g)
    if number:
        return AUTOMATIC_DYNAMIC_NUMBER if (number.group("source"), "value") not in changed else ""
    m = _SIZE_GUARD.match(g)
    if m:
        key = (m.group("tensor"), m.group("index"))
        if "_parameters[" in key[0] or "_buffers[" in key[0]:
            return ""
        if m.group("expected") in ("0", "1") or m.group("actual") in ("0", "1"):
            return ZERO_ONE
        return AUTOMATIC_DYNAMIC if key not in changed else ""
    r = _RANGE_GUARD.match(g)
    value = actual.get((r.group("tensor"), r.group("index"))) if r else None
    if r and value is not None and value < int(r.group("low")):
        return ZERO_ONE
    if guard_lines or not _SIZES_ONLY.match(g):
        return ""
    if r and value is None and not r.group("high"):
        return ZERO_ONE
    return TORCH_SIZE_GUARD


def reclassify_recompiles(records: list[dict]) -> list[dict]:
    """The recompile events' `scorable`/`why_not` decided again by `recompile_policy`, frame by frame in order."""
    changed: dict[tuple, set[tuple[str, str]]] = {}
    for r in sorted((r for r in records if r.get("target") == "recompile" and r["file"] and
                     r["why_not"] in (None, AUTOMATIC_DYNAMIC, AUTOMATIC_DYNAMIC_NUMBER, ZERO_ONE, TORCH_SIZE_GUARD)),
                    key=lambda r: (r["model"], r["file"], r["line"], r["nth"])):
        why = recompile_policy(r["reasons"], changed.setdefault((r["model"], r["file"], r["line"]), set()),
                               r["guard_lines"])
        r["why_not"], r["scorable"] = why or None, not why
    return records


def _trace_events(paths: Paths, trace: dict) -> list[dict]:
    out = []
    for w in trace.get("warnings", []):
        if paths.in_library(w["file"]) or os.path.realpath(w["file"] or "") == paths.factory_file:
            out.append(_event(paths, "trace", "tracer_warning", w["file"], w["line"], message=w["message"]))
        elif w.get("user_frame") and paths.is_torch(w["file"]):
            file, line = w["user_frame"]
            out.append(_event(paths, "trace", "tracer_warning", file, line, message=w["message"],
                              why_not=INSIDE_TORCH if paths.in_library(file) else classify(paths, file, line),
                              reported_at=f"{w['file']}:{w['line']}"))
        else:
            out.append(_event(paths, "trace", "tracer_warning", None, None, message=w["message"],
                              why_not=OUTSIDE, reported_at=f"{w['file']}:{w['line']}"))
    if trace.get("error"):
        out.append(_event(paths, "trace", "trace_error", None, None, message=trace["error"]))
    if trace.get("diverged"):
        out.append(_event(paths, "trace", "trace_divergence", None, None, message=trace.get("divergence", "")))
        # the traced graph raised on another input set: TorchScript names the Python line that recorded the op
        frame = next(((f, n) for f, n in trace.get("failure_frames", []) if paths.in_library(f)), None)
        if frame is not None:
            out.append(_event(paths, "trace", "traced_call_failed", frame[0], frame[1],
                              message=trace.get("divergence", "")))
    return out


def _export_events(paths: Paths, ex: dict) -> list[dict]:
    if ex.get("ok", True):
        return []
    out = [_event(paths, "export", "export_error", ex.get("file"), ex.get("line"), message=ex.get("error", ""))]
    for more in ex.get("more", []):
        if (more["file"], more["line"]) != (ex.get("file"), ex.get("line")):
            out.append(_event(paths, "export", "export_guard", more["file"], more["line"], message=more["error"]))
    return out


def _script_events(paths: Paths, result: dict) -> list[dict]:
    out = []
    for cls in result.get("classes", []):
        for e in cls.get("errors", []):
            out.append(_event(paths, "torchscript", "script_error", e["file"], e["line"], message=e["error"],
                              scripted_class=cls["class"]))
        if cls.get("status") != "ok":
            out.append(_event(paths, "torchscript", "script_crash", None, None, message=cls["status"],
                              scripted_class=cls["class"]))
        failed = cls.get("call_error")
        if failed:
            # scripted, then failed when called with the inputs its eager self saw: at the line torch names, and
            # pinned to the signatures on its TorchScript traceback (an unannotated `x=None` typed Tensor)
            out.append(_event(paths, "torchscript", "script_call_error", failed["file"], failed["line"],
                              message=failed["error"], scripted_class=cls["class"]))
            for file, first, last in failed.get("signatures", []):
                if paths.in_library(file):
                    for n in range(first, last + 1):
                        out.append(_event(paths, "torchscript", "script_call_signature", file, n,
                                          message=failed["error"], why_not=CALLED_SIGNATURE,
                                          scripted_class=cls["class"]))
    return out


def _script_unchecked(paths: Paths, result: dict) -> list[list]:
    """[file, first, last] of the methods whose lines after their first error TorchScript never checked."""
    spans = {(paths.rel(f), a, b) for cls in result.get("classes", []) for f, a, b in cls.get("stubbed", [])
             if f and paths.in_library(f)}
    return [list(s) for s in sorted(spans)]


def _run_script(entry: Entry, paths: Paths, scope_dirs: list[str]) -> tuple[list[dict], dict]:
    script = run_in_child("benchmarks.realworld.script_classes",
                          ["--target", os.path.join(ROOT, entry.path) + ":" + entry.factory,
                           *[a for d in scope_dirs for a in ("--scope", d)]],
                          timeout=TIMEOUT_S, memory_mb=MEMORY_MB, cwd=ROOT)
    payload = script.payload or {}
    classes = payload.get("classes", [])
    clean = sorted({(paths.rel(c["span"][0]), c["span"][1], c["span"][2]) for c in classes
                    if c.get("ok") and c.get("span") and c["span"][0] and paths.in_library(c["span"][0])})
    return _script_events(paths, payload), {
        "script_status": script.status, "classes_scripted": len(classes),
        "script_unchecked": _script_unchecked(paths, payload),
        # the model's own class scripted with no error: every line its run reached was compiled by TorchScript
        "script_root_ok": any(c.get("root") and c.get("ok") for c in classes),
        # classes that scripted with no error: their own lines were compiled
        "script_clean": [list(c) for c in clean]}


def _coverage_fields(paths: Paths, payload: dict) -> dict:
    """The library lines the eager run executed (with the model's construction, the input sets alone, and the first
    set alone), as ranges per file."""
    return {key: {paths.rel(f): _ranges(v) for f, v in payload.get(key, {}).items() if paths.in_library(f)}
            for key in ("coverage", "coverage_forward", "coverage_first_set")}


def _loop_headers(path: str) -> dict[int, int]:
    """`for`/`while` statement lines of a file -> the first line of the function holding them (its first decorator,
    as `co_firstlineno`)."""
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[int, int] = {}

    def visit(node: ast.AST, first: int | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.decorator_list[0].lineno if child.decorator_list else child.lineno)
            elif isinstance(child, ast.Lambda):
                continue
            else:
                if isinstance(child, (ast.For, ast.While)) and first is not None:
                    out[child.lineno] = first
                visit(child, first)

    visit(tree, None)
    return out


def _loop_events(paths: Paths, payload: dict) -> list[dict]:
    """A loop that runs another number of times per call for another input set than for the first: torch.jit.trace
    records the first set's iterations, so the traced model is wrong (or fails) for that set."""
    counts, calls = payload.get("coverage_set_counts") or [], payload.get("coverage_set_calls") or []
    if len(counts) < 2 or len(calls) != len(counts):
        return []
    out = []
    for file in counts[0]:
        if not paths.in_library(file):
            continue
        for line, first in sorted(_loop_headers(file).items()):
            def trips(i: int) -> float | None:
                n = calls[i].get(file, {}).get(str(first), 0)
                return counts[i].get(file, {}).get(str(line), 0) / n if n else None
            base = trips(0)
            if not base:
                continue
            for i in range(1, len(counts)):
                other = trips(i)
                if other is not None and other != base:
                    out.append(_event(paths, "trace", "loop_varies", file, line, message=(
                        f"the loop runs {base:g} times per call on input set 0 and {other:g} on input set {i}: the "
                        "trace keeps the first")))
                    break
    return out


def _versions(entry: Entry) -> dict:
    out = {}
    for dist in ("torch", entry.library):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    return out


def run_model(entry: Entry) -> list[dict]:
    scope_dirs = resolve([entry.package])
    paths = Paths(entry, scope_dirs)
    started = time.monotonic()
    run = probe_one(entry.target, checks=CHECKS, base=ROOT, timeout=TIMEOUT_S, memory_mb=MEMORY_MB,
                    scope=scope_dirs, calls=CALLS, isolate=False)
    payload = run.payload or {}
    checks = payload.get("checks", {})
    events: list[dict] = []
    events += _dynamo_events(paths, checks.get("dynamo", {}))
    events += _trace_events(paths, checks.get("trace", {}))
    events += _export_events(paths, checks.get("export", {}))
    if "trace" in checks:
        events += _loop_events(paths, payload)
    script = {"script_status": "not run", "classes_scripted": 0, "script_unchecked": [], "script_root_ok": False,
              "script_clean": []}
    if run.status == "ok":
        script_events, script = _run_script(entry, paths, scope_dirs)
        events += script_events

    model = {"record": "model", "model": entry.name, "library": entry.library, "package": entry.package,
             "doc": entry.doc, "versions": _versions(entry), "torch": payload.get("torch"),
             "python": platform.python_version(), "status": run.status, "reason": run.reason,
             **script, "input_sets": payload.get("input_sets", 0),
             "calls": CALLS, "wall_s": round(time.monotonic() - started, 1), "timings": payload.get("timings", {}),
             **_coverage_fields(paths, payload)}
    if run.status != "ok":
        events.append(_event(paths, "model", "target_failed", None, None, message=run.reason, why_not=NO_LINE))
    return [model] + events


def _load(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _save(path: str, records: list[dict], order: list[str]) -> None:
    rank = {name: i for i, name in enumerate(order)}
    records = sorted(records, key=lambda r: (rank.get(r["model"], len(rank)), r["record"] != "model"))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, sort_keys=True) + "\n")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=[], help="registry names (file:factory) to run")
    parser.add_argument("--library", action="append", default=[], help="only this library's models")
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--out", default=EVENTS)
    parser.add_argument("--coverage-only", action="store_true",
                        help="re-run only the eager run's line coverage of models already recorded")
    parser.add_argument("--script-only", action="store_true",
                        help="re-run only the per-class TorchScript check of models already recorded")
    parser.add_argument("--reclassify", action="store_true",
                        help="decide again, from the recorded guards, which recompiles are scorable; run nothing")
    ns = parser.parse_args(argv)
    registry = entries()
    chosen = [e for e in registry if (not ns.only or e.name in ns.only) and (not ns.library or e.library in ns.library)]
    records = _load(ns.out)
    order = [e.name for e in registry]
    if ns.reclassify:
        _save(ns.out, reclassify_recompiles(records), order)
        return 0

    def script_only(entry: Entry) -> list[dict]:
        """The TorchScript check again, its events and model fields replaced; everything else kept."""
        mine = [r for r in records if r["model"] == entry.name]
        head = next((r for r in mine if r["record"] == "model"), None)
        if head is None or head["status"] != "ok":
            return mine or run_model(entry)
        scope_dirs = resolve([entry.package])
        events, fields = _run_script(entry, Paths(entry, scope_dirs), scope_dirs)
        head.update(fields)
        return [head] + [r for r in mine if r["record"] == "event" and r["target"] != "torchscript"] + events

    def coverage_only(entry: Entry) -> list[dict]:
        """The eager run again, for its coverage fields; events kept."""
        mine = [r for r in records if r["model"] == entry.name]
        head = next((r for r in mine if r["record"] == "model"), None)
        if head is None or head["status"] != "ok":
            return mine or run_model(entry)
        scope_dirs = resolve([entry.package])
        paths = Paths(entry, scope_dirs)
        run = probe_one(entry.target, checks=[], base=ROOT, timeout=TIMEOUT_S, memory_mb=MEMORY_MB,
                        scope=scope_dirs, isolate=False)
        payload = run.payload or {}
        if run.status != "ok":
            return mine
        head.update(_coverage_fields(paths, payload))
        return [r for r in mine if r.get("kind") != "loop_varies"] + _loop_events(paths, payload)

    def one(entry: Entry) -> list[dict]:
        result = (script_only(entry) if ns.script_only else coverage_only(entry) if ns.coverage_only
                  else run_model(entry))
        head = result[0]
        scorable = sum(1 for r in result[1:] if r["scorable"])
        print(f"{entry.name}: {head['status']} in {head['wall_s']}s, {len(result) - 1} events "
              f"({scorable} scorable), {head['classes_scripted']} classes scripted", flush=True)
        return result

    with ThreadPoolExecutor(max_workers=max(1, ns.jobs)) as pool:
        for entry, result in zip(chosen, pool.map(one, chosen)):
            records = [r for r in records if r["model"] != entry.name] + result
            _save(ns.out, records, order)
    return 0


if __name__ == "__main__":
    sys.exit(main())
