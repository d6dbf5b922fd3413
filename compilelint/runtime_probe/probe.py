"""`compilelint probe`: run each target in its own child, lint the files its events name, match.

The parent never imports user code or torch: it parses target strings, starts one child per target
(compilelint.runtime_probe.child through runner.run_in_child), reads their JSON, lints with the
static engine and matches (match.py). SIGINT, SIGTERM and SIGHUP cancel the run: every running child's
process tree is killed and its folder removed, targets not yet started are skipped, and the report covers
the targets that finished (exit status 128 + the signal's number).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from compilelint.config import Config
from compilelint.findings import CONFIRMED, RUNTIME_ONLY, Finding
from compilelint.runtime_probe.match import TargetRun, merge, runtime_only
from compilelint.runtime_probe.runner import CANCELLED, DEFAULT_OUTPUT_LIMIT_MB, run_in_child
from compilelint.runtime_probe.scope import FileScope
from compilelint.runtime_probe.spec import CHECKS, TargetError, parse_target

CHILD_MODULE = "compilelint.runtime_probe.child"
DEFAULT_TIMEOUT = 600.0
DEFAULT_MEMORY_MB = 8192


@functools.lru_cache(maxsize=1)
def torch_is_cuda_build() -> bool:
    """Whether the torch a child would import is a CUDA build, found without importing it (the parent never
    does). Its libraries map far more address space than they use: on the H200 machine (torch 2.11+cu130) a
    child capped at 2048 MB of address space failed inside `import torch`, before any user code ran. Such
    children are bounded by resident size instead, as for device="cuda"."""
    spec = importlib.util.find_spec("torch")
    for location in (spec.submodule_search_locations or []) if spec else []:
        lib = Path(location) / "lib"
        if any(lib.glob("libtorch_cuda*.so*")) or any(lib.glob("libc10_cuda*.so*")):
            return True
    return False


_DEFAULT_SCOPE = FileScope()


@dataclass
class ProbeResult:
    runs: list[TargetRun]
    findings: list[Finding]
    files: list[str] = field(default_factory=list)
    rule_codes: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    scope: FileScope = field(default_factory=lambda: _DEFAULT_SCOPE)
    interrupted: int | None = None  # the signal that cancelled the run, if one came

    @property
    def failed(self) -> list[TargetRun]:
        return [r for r in self.runs if r.status != "ok"]

    @property
    def cancelled(self) -> list[TargetRun]:
        return [r for r in self.runs if r.status == CANCELLED]


class Cancellation:
    """Cancels a probe run on SIGINT, SIGTERM or SIGHUP. The handler only sets `event`: run_in_child sees it
    within its poll interval and kills that child's tree, and targets not started yet are skipped, so the run
    ends promptly with a report of what finished. A second Ctrl-C raises KeyboardInterrupt as usual (the
    children still die: run_in_child kills them on any exception). Handlers are installed only from the main
    thread (Python allows no other), never over a signal that was ignored (nohup, a background job), and put
    back on exit."""

    SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.signum: int | None = None
        self._previous: dict[int, object] = {}

    def __enter__(self) -> "Cancellation":
        if threading.current_thread() is not threading.main_thread():
            return self
        for name in self.SIGNALS:
            num = getattr(signal, name, None)
            if num is None:
                continue
            previous = signal.getsignal(num)
            if previous is signal.SIG_IGN:
                continue
            self._previous[num] = signal.SIG_DFL if previous is None else previous
            signal.signal(num, self._on_signal)
        return self

    def _on_signal(self, signum: int, frame: object) -> None:
        if self.signum is not None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.cancel(signum)

    def cancel(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self.event.set()

    def __exit__(self, *exc: object) -> None:
        for num, previous in self._previous.items():
            signal.signal(num, previous)
        self._previous.clear()


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def user_file(path: str | None, scope: FileScope = _DEFAULT_SCOPE) -> bool:
    return bool(path) and path.endswith(".py") and os.path.isfile(path) and scope(path)


def enabled_checks(config: Config) -> list[str]:
    return [c for c in CHECKS if c in config.targets]


_ISOLATED_KINDS = ("dynamo", "recompile", "torchscript")


def isolation_hints(paths: list[str], config: Config | None) -> dict[str, list[int]]:
    """{file: lines} of the target files' static dynamo/recompile/TorchScript findings: the lines a child
    re-checks one at a time when a whole-module check stopped before them (isolate.py). A file missing
    (a target given as a module name, a failed lint) leaves the child to isolate every statement it can.
    Call from the main thread (the engine's per-file timeout uses SIGALRM)."""
    return isolation_plan(paths, config)[0]


def isolation_plan(paths: list[str], config: Config | None) -> tuple[dict[str, list[int]], dict[str, list[list]]]:
    """(isolation_hints, fixes): also, per file, the one-line fixes of its TorchScript findings as
    [start_line, start_col, end_line, end_col, text], with which a child scripts a method again after its
    first error to reach the next one (isolate.isolate_script_fixed)."""
    paths = sorted({os.path.realpath(p) for p in paths if p and user_file(p)})
    if not paths or config is None:
        return {}, {}
    from compilelint.engine import lint

    try:
        found = lint(paths, config, jobs=1, files=paths).findings
    except Exception:  # noqa: BLE001 - a hint, never a reason to fail the probe
        return {}, {}
    lines: dict[str, set[int]] = {p: set() for p in paths}
    fixes: dict[str, list[list]] = {}
    for f in found:
        real = os.path.realpath(f.path)
        if any(k in f.targets for k in _ISOLATED_KINDS) and real in lines:
            lines[real].update(range(f.line, max(f.end_line, f.line) + 1))
        fix = f.fix
        if fix is not None and "torchscript" in f.targets and real in lines and fix.start_line == fix.end_line \
                and "\n" not in fix.text:
            fixes.setdefault(real, []).append([fix.start_line, fix.start_col, fix.end_line, fix.end_col, fix.text])
    return {p: sorted(v) for p, v in lines.items()}, fixes


class StageWatch:
    """Reads the stage the child last reported from its result file, which the child rewrites (atomically) at
    the start of every stage: the file is read again only when it has changed, and never blocks or raises."""

    def __init__(self, on_stage: Callable[[str], None]) -> None:
        self.on_stage = on_stage
        self.seen: tuple | None = None
        self.stage = ""

    def __call__(self, path: str) -> None:
        try:
            st = os.stat(path)
            key = (st.st_ino, st.st_mtime_ns, st.st_size)
            if key == self.seen:
                return
            self.seen = key
            with open(path, encoding="utf-8") as fh:
                stage = json.load(fh).get("stage")
        except (OSError, ValueError, AttributeError):  # not written yet, or replaced while read: next time
            return
        if isinstance(stage, str) and stage != self.stage:
            self.stage = stage
            try:
                self.on_stage(stage)
            except Exception:  # noqa: BLE001 - a display must never stop the probe
                pass


def probe_one(text: str, *, checks: list[str], device: str = "cpu", timeout: float = DEFAULT_TIMEOUT,
              memory_mb: int = DEFAULT_MEMORY_MB, base: str = ".", backend: str = "eager",
              dynamic: bool | None = None, isolate_lines: dict[str, list[int]] | None = None,
              isolate_fixes: dict[str, list[list]] | None = None, scope: list[str] | None = None,
              calls: int = 0, isolate: bool = True, output_limit_mb: int = DEFAULT_OUTPUT_LIMIT_MB,
              cancel: threading.Event | None = None, on_stage: Callable[[str], None] | None = None) -> TargetRun:
    """Run one target in its own child. `scope`: resolved scope entries (scope.resolve) whose files count as
    the user's; `calls`: at least this many compiled calls (input sets cycled); `isolate`: the one-line
    re-checks after a whole-module check stopped short (off: only what the whole-model checks saw);
    `output_limit_mb`: the child's stdout and stderr together, past which it is killed; `cancel`: set, the
    child is killed and the run comes back "cancelled"; `on_stage`: called with each stage the child reports
    (import torch, factory, eager, dynamo, torchscript, trace, export, isolate) as it starts it."""
    try:
        target = parse_target(text, base)
    except TargetError as err:
        return TargetRun(target=text, status="invalid", reason=str(err), payload={})
    spec = {"file": target.file, "module": target.module, "factory": target.factory, "device": device,
            "checks": checks, "backend": backend, "dynamic": dynamic, "scope": list(scope or []), "calls": calls,
            "isolate": isolate,
            "isolate_lines": {p: v for p, v in (isolate_lines or {}).items()
                              if target.file and p == os.path.realpath(target.file)},
            "isolate_fixes": {p: v for p, v in (isolate_fixes or {}).items()
                              if target.file and p == os.path.realpath(target.file)}}
    # A CUDA build of torch reserves far more address space than it uses, even on device="cpu": bound the
    # child's resident size from the parent instead of its address space.
    by_rss = device.startswith("cuda") or torch_is_cuda_build()
    result = run_in_child(CHILD_MODULE, ["--spec", json.dumps(spec)], timeout=timeout,
                          memory_mb=0 if by_rss else memory_mb, rss_limit_mb=memory_mb if by_rss else 0,
                          cwd=os.path.abspath(base), output_limit_mb=output_limit_mb, cancel=cancel,
                          on_poll=StageWatch(on_stage) if on_stage is not None else None)
    payload = result.payload or {}
    target_file = payload.get("target_file") or target.file
    status, reason = result.status, result.reason
    if status == "ok" and payload.get("status") == "running":
        status = "error"
        reason = (f"the child stopped during stage '{payload.get('stage')}' without finishing "
                  f"(exit status {result.returncode}; did the code call os._exit?)")
    elif status == "ok" and payload.get("status") != "ok":
        err = payload.get("error") or {}
        status = "error"
        where = f" at {os.path.relpath(err['file'])}:{err['line']}" if err.get("file") else ""
        reason = f"{err.get('stage', 'run')}: {err.get('type', 'Error')}: {err.get('message', '')}{where}"
        if err.get("type") == "MemoryError" or "not enough memory" in err.get("message", "") or \
                "can't allocate memory" in err.get("message", ""):
            status = "oom"
            reason = f"out of memory under the {memory_mb} MB bound ({reason})"
    elif status != "ok" and payload.get("stage"):
        reason = f"{reason} during stage '{payload['stage']}'"
    return TargetRun(target=text, status=status, reason=reason, payload=payload, wall_s=result.wall_s,
                     target_file=target_file, factory=target.factory)


# A runtime-only finding is silenced by the comments that silence its own code or the static codes of
# the same kind on that line (`# noqa: GB401` also quiets the RT401 the same break would give).
_KIN = {"RT401": ("GB",), "RT402": ("GB",), "RT501": ("RC",), "RT101": ("TS", "TA"), "RT301": ("TR",),
        "RT302": ("TR",), "RT601": ("EX",)}


def _suppressed(f: Finding) -> bool:
    from compilelint.suppress import ALL, Suppressions, file_is_skipped

    if f.code == "RT001":  # a target that failed is never silenced
        return False
    try:
        with open(f.path, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return False
    if file_is_skipped(text):
        return True
    codes = Suppressions.from_lines(text.splitlines()).by_line.get(f.line, set())
    return bool(codes) and (ALL in codes or f.code in codes or any(c.startswith(_KIN.get(f.code, ())) for c in codes
                                                                   if _KIN.get(f.code)))


def _display_path(path: str) -> str:
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def probe(targets: list[str], config: Config, *, device: str = "cpu", timeout: float = DEFAULT_TIMEOUT,
          memory_mb: int = DEFAULT_MEMORY_MB, base: str = ".", jobs: int = 1,
          dynamic: bool | None = None, progress: Callable[[int, int, str, TargetRun | None], None] | None = None,
          scope: list[str] | None = None, output_limit_mb: int = DEFAULT_OUTPUT_LIMIT_MB) -> ProbeResult:
    """Probe every target (each in its own child), then lint and match. Never raises for user code.
    `scope`: resolved scope entries (scope.resolve): the files that count as the user's besides the default.
    SIGINT/SIGTERM/SIGHUP cancel the targets still running: the result then holds the finished ones'
    findings, the others as "cancelled", and `interrupted`."""
    with Cancellation() as cancelling:
        return _probe(targets, config, device=device, timeout=timeout, memory_mb=memory_mb, base=base, jobs=jobs,
                      dynamic=dynamic, progress=progress, scope=scope, output_limit_mb=output_limit_mb,
                      cancelling=cancelling)


def _cancelled(text: str, reason: str) -> TargetRun:
    return TargetRun(target=text, status=CANCELLED, reason=reason, payload={})


def _probe(targets: list[str], config: Config, *, device: str, timeout: float, memory_mb: int, base: str, jobs: int,
           dynamic: bool | None, progress: Callable[[int, int, str, TargetRun | None], None] | None,
           scope: list[str] | None, output_limit_mb: int, cancelling: Cancellation) -> ProbeResult:
    from compilelint.engine import lint

    in_scope = FileScope(scope or [])

    def mine(path: str | None) -> bool:
        return user_file(path, in_scope)

    start = time.monotonic()
    cancel = cancelling.event
    checks = enabled_checks(config)
    target_files = []
    for text in targets:
        try:
            target_files.append(parse_target(text, base).file)
        except TargetError:
            pass
    hints, fixes = isolation_plan(target_files, config)

    def one(text: str) -> TargetRun:
        if cancel.is_set():
            return _cancelled(text, "cancelled before it started")
        stage = getattr(progress, "stage", None)  # a printer that shows each target's stages
        return probe_one(text, checks=checks, device=device, timeout=timeout, memory_mb=memory_mb, base=base,
                         dynamic=dynamic, isolate_lines=hints, isolate_fixes=fixes, scope=scope,
                         output_limit_mb=output_limit_mb, cancel=cancel,
                         on_stage=functools.partial(stage, text) if stage is not None else None)

    runs: list[TargetRun] = []
    if jobs <= 1 or len(targets) <= 1:
        for i, text in enumerate(targets):
            if progress:
                progress(i, len(targets), text, None)
            runs.append(one(text))
            if progress:
                progress(i + 1, len(targets), text, runs[-1])
    else:
        from concurrent.futures import ThreadPoolExecutor, as_completed

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(one, text): i for i, text in enumerate(targets)}
            done: dict[int, TargetRun] = {}
            try:
                for future in as_completed(futures):
                    done[futures[future]] = future.result()
                    if progress:
                        progress(len(done), len(targets), done[futures[future]].target, done[futures[future]])
            except BaseException:  # a second Ctrl-C: the pool's threads must not wait out their timeouts
                cancel.set()
                raise
        runs = [done[i] for i in range(len(targets))]
    if cancelling.signum is not None:
        name = _signal_name(cancelling.signum)
        for run in runs:
            if run.status == CANCELLED:
                run.reason = run.reason.replace("cancelled", f"cancelled by {name}", 1)
    # A cancelled target's partial events would mark lines "not reproduced" that it never got to check.
    finished = [r for r in runs if r.status != CANCELLED]
    files: set[str] = set()
    for run in finished:
        files |= run.event_files()
        files |= {f for f in run.coverage() if mine(f)}
    files = {os.path.realpath(f) for f in files if mine(f)}
    ordered = sorted(_display_path(f) for f in files)
    statics: list[Finding] = []
    codes: list[str] = []
    if ordered:
        result = lint(ordered, config, jobs=1, files=ordered)
        statics, codes = result.findings, result.rule_codes
    merge(statics, finished)
    extra: list[Finding] = []
    for run in finished:
        extra.extend(runtime_only(run, statics, mine))
    unique: dict[tuple, Finding] = {}
    for f in extra:  # the same event seen by several targets (a shared helper): one finding, all evidence
        key = (f.code, os.path.realpath(f.path), f.line, f.message)
        if key in unique:
            unique[key].evidence.extend(e for e in f.evidence if e not in unique[key].evidence)
        else:
            unique[key] = f
    extra = [f for f in unique.values() if not _suppressed(f)]
    for f in extra:
        f.path = _display_path(f.path) if os.path.isabs(f.path) else f.path
    findings = sorted(statics + extra, key=Finding.sort_key)
    return ProbeResult(runs=runs, findings=findings, files=ordered, rule_codes=codes,
                       wall_s=time.monotonic() - start, scope=in_scope, interrupted=cancelling.signum)


# ---- summaries ---------------------------------------------------------------------------------------

def target_summary(run: TargetRun) -> dict:
    c = run.checks
    out: dict = {"target": run.target, "status": run.status, "reason": run.reason, "wall_s": round(run.wall_s, 2),
                 "target_file": run.target_file, "input_sets": run.payload.get("input_sets", 0),
                 "device": run.payload.get("device"), "torch": run.payload.get("torch"),
                 "dynamic": run.payload.get("dynamic"),
                 "timings": run.payload.get("timings", {})}
    if "dynamo" in c:
        d = c["dynamo"]
        out["dynamo"] = {"graphs": d["graph_count"], "breaks": len(d["breaks"]), "frames_skipped": d["skipped_frames"],
                         "recompiles": len(d["recompiles"]), "error": d["error"],
                         "break_sites": [{"file": b["file"], "line": b["line"], "gb_ids": b["gb_ids"],
                                          "frame_skipped": b["frame_skipped"]} for b in d["breaks"]],
                         "recompile_reasons": [{"function": r["function"], "reason": (r["reasons"] or ["?"])[0],
                                                "locations": r["locations"]} for r in d["recompiles"]]}
    for key in ("torchscript", "export"):
        if key in c:
            out[key] = {"ok": c[key]["ok"], "error": c[key]["error"], "file": c[key]["file"], "line": c[key]["line"]}
    if "trace" in c:
        t = c["trace"]
        out["trace"] = {"ok": not t["error"] and not t["diverged"] and not t["warnings"], "error": t["error"],
                        "warnings": t["warnings"], "diverged": t["diverged"], "divergence": t["divergence"]}
    return out


def _where(file: str | None, line: int | None) -> str:
    return f" at {_display_path(file)}:{line}" if file else ""


def render_summary(result: ProbeResult) -> str:
    lines: list[str] = []
    for run in result.runs:
        p = run.payload or {}
        head = f"probe {run.target}: {run.status}"
        if run.status == "ok":
            head += (f" in {run.wall_s:.1f}s ({p.get('input_sets', 0)} input sets, {p.get('device')}, "
                     f"torch {p.get('torch')}, dynamic={p.get('dynamic')})")
        else:
            head += f" in {run.wall_s:.1f}s: {run.reason}"
        lines.append(head)
        c = run.checks
        if "dynamo" in c:
            d = c["dynamo"]
            sites = ", ".join(f"{'/'.join(b['gb_ids']) or '?'} at {_display_path(b['file'])}:{b['line']}"
                              for b in d["breaks"][:6])
            lines.append(f"  dynamo:      {d['graph_count']} graph(s), {len(d['breaks'])} break(s)"
                         f"{' (' + sites + ')' if sites else ''}, {d['skipped_frames']} frame(s) skipped, "
                         f"{len(d['recompiles'])} recompile(s)" + (f"; error: {d['error']}" if d["error"] else ""))
            reasons = list(dict.fromkeys((r["reasons"] or ["?"])[0] for r in d["recompiles"]))
            for reason in reasons[:4]:
                lines.append(f"               guard failed: {reason[:140]}")
        if "torchscript" in c:
            s = c["torchscript"]
            lines.append("  torchscript: " + ("ok" if s["ok"] else f"failed{_where(s['file'], s['line'])}: {s['error']}"))
        if "trace" in c:
            t = c["trace"]
            if t["error"]:
                lines.append(f"  trace:       failed: {t['error']}")
            else:
                parts = [f"{len(t['warnings'])} TracerWarning(s)"]
                mine = list(dict.fromkeys(f"{_display_path(w['file'])}:{w['line']}" for w in t["warnings"]
                                          if user_file(w["file"], result.scope)))
                parts += mine[:6]
                parts.append(f"diverges from eager ({t['divergence']})" if t["diverged"] else "matches eager on every input set")
                lines.append("  trace:       " + ", ".join(parts))
        if "export" in c:
            e = c["export"]
            lines.append("  export:      " + ("ok" if e["ok"] else f"failed{_where(e['file'], e['line'])}: {e['error']}"))
    counts: dict[str, int] = {}
    for f in result.findings:
        counts[f.probe_state] = counts.get(f.probe_state, 0) + 1
    if counts:
        lines.append("findings: " + ", ".join(f"{n} {state}" for state, n in sorted(counts.items())))
    if result.interrupted is not None:
        lines.append(f"interrupted by {_signal_name(result.interrupted)}: {len(result.cancelled)} of "
                     f"{len(result.runs)} target(s) cancelled; the findings are those of the targets that finished")
    return "\n".join(lines) + "\n"


def render(result: ProbeResult, output_format: str, *, category: str = "compilelint/probe") -> str:
    from compilelint import __version__
    from compilelint.report import FORMATS
    from compilelint.report.json import finding_json
    from compilelint.report.merge import one_per_construct

    if output_format == "json":
        payload = {"tool": "compilelint", "mode": "probe", "version": __version__,
                   "targets": [target_summary(r) for r in result.runs],
                   # 1-based columns, one finding per construct, as `check`
                   "findings": [finding_json(f) for f in one_per_construct(result.findings)],
                   "interrupted": None if result.interrupted is None else _signal_name(result.interrupted)}
        return json.dumps(payload, indent=2, sort_keys=True) + "\n"
    text = FORMATS[output_format](result.findings, files=len(result.files), root=".",
                                  rule_codes=result.rule_codes, category=category)
    if output_format == "text":
        return render_summary(result) + text
    return text


def exit_code(result: ProbeResult) -> int:
    """1 for confirmed or runtime-only findings or a target that failed, 0 otherwise; 128 + the signal's number
    for a run that a signal cancelled (as a shell reports a command killed by it)."""
    if result.interrupted is not None:
        return 128 + result.interrupted
    bad = any(f.probe_state in (CONFIRMED, RUNTIME_ONLY) for f in result.findings)
    return 1 if bad or result.failed else 0


# What the child's stages are called on the progress line (child.py `_stage`).
_STAGE_NAMES = {"start": "start", "import torch": "import", "factory": "factory", "eager": "eager",
                "dynamo": "dynamo", "torchscript": "script", "trace": "trace", "export": "export",
                "isolate": "isolate", "done": "done"}


class ProgressPrinter:
    """One status line on a terminal: targets done of all, and the stage each running target is in
    (import, eager, dynamo, script, trace, export, isolate), redrawn in place."""

    def __init__(self, stream=sys.stderr, checks: list[str] | None = None) -> None:  # noqa: ANN001
        self.stream = stream
        self.plan = ["import", "eager", *(_STAGE_NAMES.get(c, c) for c in (checks or [])
                                          if c != "recompile"), "isolate"]
        self.lock = threading.Lock()
        self.done, self.total = 0, 0
        self.started: dict[str, float] = {}
        self.stages: dict[str, str] = {}

    def _bar(self) -> str:
        width = 20
        filled = int(width * self.done / max(self.total, 1))
        return "[" + "#" * filled + "-" * (width - filled) + f"] {self.done}/{self.total}"

    def _write(self, text: str, end: bool = False) -> None:
        self.stream.write(f"\r{text}\033[K" + ("\n" if end else ""))
        self.stream.flush()

    def __call__(self, done: int, total: int, text: str, run: TargetRun | None) -> None:
        with self.lock:
            self.done, self.total = done, total
            if run is None:
                self.started[text] = time.monotonic()
                self._write(f"{self._bar()} {text} starting")
                return
            self.stages.pop(text, None)
            self._write(f"{self._bar()} {text} {run.status} ({run.wall_s:.1f}s)", end=done == total)

    def stage(self, text: str, stage: str) -> None:
        name = stage.split(" (")[0]  # "eager (input set 2)" is the eager stage
        shown = _STAGE_NAMES.get(name, name)
        with self.lock:
            self.stages[text] = shown
            elapsed = time.monotonic() - self.started.setdefault(text, time.monotonic())
            step = f" {self.plan.index(shown) + 1}/{len(self.plan)}" if shown in self.plan else ""
            detail = stage[len(name):] if stage != name else ""
            self._write(f"{self._bar()} {text}: {shown}{detail}{step} ({elapsed:.0f}s)")


def progress_printer(stream=sys.stderr, checks: list[str] | None = None) -> ProgressPrinter:  # noqa: ANN001
    return ProgressPrinter(stream, checks)
