"""The probe's child process: `python -m compilelint.runtime_probe.child --spec JSON --result FILE`.

Imports the target, builds the model with its factory, runs it eagerly on every input set while
recording which lines run (`sys.settrace`), then runs the enabled checks (Dynamo graph breaks and
recompiles, torch.jit.script, torch.jit.trace with a check on the other input sets, torch.export) and
writes what torch said as JSON. The result file is rewritten after every stage, so a crash or a kill
part-way leaves the stages before it. Exit status 0 whenever a result was written, even when the
user's code failed: that failure is the result.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import importlib.util
import inspect
import json
import os
import sys
import time
import traceback

_STATE: dict = {}
_RESULT_PATH = ""


def _write() -> None:
    tmp = _RESULT_PATH + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(_STATE, fh)
    os.replace(tmp, _RESULT_PATH)


from compilelint.runtime_probe.scope import FileScope  # noqa: E402 - no torch, no user code

_SCOPE = FileScope()


def is_user_file(filename: str) -> bool:
    """Whether events and coverage in this file are the user's (the probe's --scope; default: files outside the
    standard library and installed packages)."""
    return _SCOPE(filename)


_CO_NEWLOCALS = 0x0002  # set on function code objects, not on module or class bodies


class Coverage:
    """Lines of user files that run, via sys.settrace (library frames are not traced line by line).

    `lines`: lines run inside functions, with each called function's header (decorators and `def` line(s)),
    so a finding on a parameter counts as run only when the function was called. `module_lines`: lines
    run in module and class bodies (import time), where a `def` line runs without its function being called.
    """

    def __init__(self, wanted: dict[str, list[int]] | None = None) -> None:
        self.lines: dict[str, set[int]] = {}
        self.module_lines: dict[str, set[int]] = {}
        # Per input set (after start_set(i)): line hit counts, and the frame's locals the first time each
        # wanted line (keys: real paths) is about to run; for the isolated re-checks (isolate.py).
        self.wanted = {k: set(v) for k, v in (wanted or {}).items()}
        self.set_hits: list[dict[str, dict[int, int]]] = []
        self.set_calls: list[dict[str, dict[int, int]]] = []  # per input set: calls per function (co_firstlineno)
        self.set_locals: list[dict[tuple[str, int], dict]] = []
        self._counting = False
        self.changed_attrs: dict[str, list] = {}  # plain attributes that changed over the eager calls

    def start_set(self) -> None:
        self.set_hits.append({})
        self.set_calls.append({})
        self.set_locals.append({})
        self._counting = True

    def _global(self, frame, event, arg):  # noqa: ANN001, ANN202
        code = frame.f_code
        filename = code.co_filename
        if not is_user_file(filename):
            return None
        if not code.co_flags & _CO_NEWLOCALS:
            body = self.module_lines.setdefault(filename, set())

            def module_local(frame, event, arg):  # noqa: ANN001, ANN202
                if event == "line":
                    body.add(frame.f_lineno)
                return module_local
            return module_local
        lines = self.lines.setdefault(filename, set())
        header = [code.co_firstlineno]
        if not self._counting:
            def local(frame, event, arg):  # noqa: ANN001, ANN202
                if event == "line":
                    if header:
                        lines.update(range(header.pop(), frame.f_lineno))
                    lines.add(frame.f_lineno)
                return local
            return local
        counts = self.set_hits[-1].setdefault(filename, {})
        calls = self.set_calls[-1].setdefault(filename, {})
        calls[code.co_firstlineno] = calls.get(code.co_firstlineno, 0) + 1
        grab = self.set_locals[-1]
        wanted = self.wanted.get(os.path.realpath(filename), ())

        def counting(frame, event, arg):  # noqa: ANN001, ANN202
            if event == "line":
                n = frame.f_lineno
                if header:
                    first = header.pop()
                    lines.update(range(first, n))
                    for h in range(first, n):  # the function's decorators and `def` line(s): run by this call
                        counts[h] = counts.get(h, 0) + 1
                lines.add(n)
                counts[n] = counts.get(n, 0) + 1
                if n in wanted and (filename, n) not in grab:
                    grab[(filename, n)] = {k: (copy.copy(v) if isinstance(v, (list, dict, set)) else v)
                                           for k, v in frame.f_locals.items()}
            return counting
        return counting

    def __enter__(self) -> "Coverage":
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)

    def as_json(self) -> dict[str, list[int]]:
        return {f: sorted(v) for f, v in self.lines.items()}

    def module_json(self) -> dict[str, list[int]]:
        return {f: sorted(v) for f, v in self.module_lines.items()}


def _package_root(path: str) -> tuple[str, str]:
    """(directory to put on sys.path, dotted module name) for a .py file, following __init__.py upward."""
    directory, filename = os.path.split(os.path.abspath(path))
    parts = [filename[:-3]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, pkg = os.path.split(directory)
        parts.append(pkg)
    return directory, ".".join(reversed(parts))


def _import_target(spec: dict):  # noqa: ANN202
    if spec.get("file"):
        root, dotted = _package_root(spec["file"])
        sys.path.insert(0, root)
        module = importlib.import_module(dotted)
        if os.path.realpath(getattr(module, "__file__", "") or "") != os.path.realpath(spec["file"]):
            # a same-named module elsewhere won the import: load the file itself
            loader_spec = importlib.util.spec_from_file_location("_compilelint_target", spec["file"])
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules["_compilelint_target"] = module
            loader_spec.loader.exec_module(module)
        return module
    sys.path.insert(0, os.getcwd())
    return importlib.import_module(spec["module"])


def _error(err: BaseException) -> dict:
    tb = traceback.extract_tb(err.__traceback__)
    user = [f for f in tb if is_user_file(f.filename)]
    where = user[-1] if user else None
    text = str(err)
    return {"type": type(err).__name__, "message": (text.splitlines()[0] if text else "")[:500],
            "file": where.filename if where else None, "line": where.lineno if where else None,
            "traceback": "".join(traceback.format_exception(type(err), err, err.__traceback__))[-4000:]}


def _break_site(b) -> dict:  # noqa: ANN001
    """A break as JSON, at the user's line: where it happened, or, for a break inside library code (json.dumps,
    any(), os.path...), the deepest frame of user code in torch's "User code traceback"."""
    file, line = b.filename, b.lineno
    if not is_user_file(file):
        user = [(f, n) for f, n in getattr(b, "user_frames", []) if is_user_file(f)]
        if user:
            file, line = user[-1]
    return {"gb_ids": b.gb_ids, "file": file, "line": line, "frame_skipped": b.frame_skipped,
            "reported_at": f"{b.filename}:{b.lineno}", "message": b.message[:2000]}


def _to_device(value, device):  # noqa: ANN001, ANN202
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, (list, tuple)):
        moved = [_to_device(v, device) for v in value]
        return type(value)(moved) if not hasattr(value, "_fields") else type(value)(*moved)
    if isinstance(value, dict):
        return {k: _to_device(v, device) for k, v in value.items()}
    return value


def _stage(name: str) -> float:
    _STATE["stage"] = name
    _write()
    return time.perf_counter()


def _done(name: str, started: float, result: dict) -> None:
    _STATE["checks"][name] = result
    _STATE["timings"][name] = round(time.perf_counter() - started, 4)
    _write()


def _has_lazy_parameters(model) -> bool:  # noqa: ANN001
    """Whether the model holds parameters of lazy modules that no forward pass has initialised yet."""
    import torch
    from torch.nn.parameter import is_lazy

    return isinstance(model, torch.nn.Module) and any(is_lazy(p) for p in model.parameters())


def _check_export(model, sets: list) -> None:  # noqa: ANN001
    from compilelint.runtime_probe import observe

    t = _stage("export")
    ex = observe.run_export(model, sets[0], is_user_file=is_user_file)
    _done("export", t, {"ok": ex.ok, "error": ex.error, "file": ex.filename, "line": ex.lineno, "more": ex.more})


def _isolate(model, sets: list, coverage: Coverage, spec: dict, enabled: list[str]) -> None:  # noqa: ANN001
    """Re-check, one line at a time, what the whole-module checks could not reach (see isolate.py): the
    statements after a break in a frame Dynamo skipped whole, the function headers TorchScript never got to
    after its first error, and per-line data for a trace that diverged."""
    from compilelint.runtime_probe import isolate, observe

    checks = _STATE["checks"]
    dyn = checks.get("dynamo") or {}
    script = checks.get("torchscript") or {}
    trace = checks.get("trace") or {}
    lines = {f: set(v) for f, v in coverage.lines.items()}
    hints = spec.get("isolate_lines") or {}
    targets = isolate.dynamo_targets([b for b in dyn.get("breaks", []) if is_user_file(b["file"])], lines, hints) \
        if "dynamo" in enabled or "recompile" in enabled else {}
    want_trace = bool(trace.get("diverged"))
    want_script = "torchscript" in enabled and script and not script.get("ok")
    if not (targets or want_trace or want_script):
        return
    t = _stage("isolate")
    result: dict = {}
    try:
        if targets or want_trace:
            if all(os.path.realpath(f) in coverage.wanted for f in targets):
                # the eager stage counted the lines and kept the locals at the hinted lines: no re-run
                hits = [{f: {str(k): n for k, n in c.items()} for f, c in per.items()} for per in coverage.set_hits]
                captured, changed = coverage.set_locals, coverage.changed_attrs
            else:
                wanted = {f: set(v) for f, v in targets.items()}
                hits, captured, changed = isolate.eager_rerun(model, sets, is_user_file, wanted)
            if want_trace:
                result["trace"] = {"hits": hits, "changed_attrs": {k: [repr(v) for v in vs][:6]
                                                                   for k, vs in changed.items()}}
            if targets:
                result["dynamo"] = isolate.isolate_dynamo(targets, captured, isolate.globals_for, observe.run_dynamo,
                                                          spec.get("backend", "eager"), _STATE["dynamic"])
        if want_script:
            files = sorted({f for f in (script.get("file"), _STATE.get("target_file")) if f and is_user_file(f)})
            result["torchscript_bodies"] = isolate.isolate_script_bodies(
                model, (script.get("file"), script.get("line")), lines, is_user_file)
            result["torchscript"] = isolate.isolate_script_headers(files, lines, {(script.get("file"), script.get("line"))},
                                                                  hints)
            result["torchscript_fixed"] = isolate.isolate_script_fixed(
                model, (script.get("file"), script.get("line")), spec.get("isolate_fixes") or {}, is_user_file)
            if coverage.set_locals:
                result["torchscript_statements"] = isolate.isolate_script_statements(
                    {f: v for f, v in hints.items() if os.path.realpath(f) in coverage.wanted}, coverage.set_locals,
                    (script.get("file"), script.get("line")), is_user_file)
    except Exception as err:  # noqa: BLE001 - isolation is extra evidence; its failure must not lose the rest
        result["error"] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:500]
    _STATE["isolated"] = result  # not a compile path of its own: kept out of "checks"
    _STATE["timings"]["isolated"] = round(time.perf_counter() - t, 4)
    _write()


def main(argv: list[str] | None = None) -> int:
    global _RESULT_PATH, _SCOPE
    parser = argparse.ArgumentParser(prog="compilelint.runtime_probe.child")
    parser.add_argument("--spec", required=True, help="JSON: file|module, factory, device, checks")
    parser.add_argument("--result", required=True)
    ns = parser.parse_args(argv)
    spec = json.loads(ns.spec)
    _RESULT_PATH = ns.result
    if spec.get("scope"):
        _SCOPE = FileScope(spec["scope"])
    _STATE.update({"status": "running", "stage": "start", "target_file": spec.get("file"), "checks": {},
                   "timings": {}, "coverage": {}, "input_sets": 0, "device": spec.get("device", "cpu")})
    _write()

    t = _stage("import torch")
    import torch

    from compilelint.runtime_probe import isolate, observe
    from compilelint.runtime_probe.spec import normalize

    _STATE["torch"] = torch.__version__
    _STATE["timings"]["import torch"] = round(time.perf_counter() - t, 4)
    device = spec.get("device", "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        _STATE.update(status="error", error={"type": "RuntimeError", "message": "--device cuda: no CUDA device here",
                                             "file": None, "line": None, "traceback": ""})
        _write()
        return 0

    coverage = Coverage(spec.get("isolate_lines"))
    t = _stage("factory")
    try:
        with coverage:
            module = _import_target(spec)
            _STATE["target_file"] = os.path.abspath(module.__file__) if getattr(module, "__file__", None) else None
            factory = getattr(module, spec["factory"], None)
            if factory is None:
                raise AttributeError(f"{module.__name__} has no attribute {spec['factory']!r}")
            try:
                takes_device = "device" in inspect.signature(factory).parameters
            except (TypeError, ValueError):
                takes_device = False
            built = normalize(factory(device=device) if takes_device else factory())
    except BaseException as err:  # noqa: BLE001 - user code: any failure is the result
        _STATE.update(status="error", error=_error(err), coverage=coverage.as_json(),
                      module_coverage=coverage.module_json())
        _STATE["error"]["stage"] = "factory"
        _write()
        return 0
    _STATE["timings"]["factory"] = round(time.perf_counter() - t, 4)
    model = built.model
    sets = [_to_device(s, device) for s in built.input_sets]
    if device != "cpu" and isinstance(model, torch.nn.Module):
        model = model.to(device)
    _STATE["input_sets"] = len(sets)
    enabled = [c for c in spec.get("checks", []) if c in built.checks]
    _STATE["enabled"] = enabled
    dynamic = built.dynamic if built.has_dynamic else getattr(module, "DYNAMIC", None)
    if spec.get("dynamic") is not None:
        dynamic = spec["dynamic"]
    _STATE["dynamic"] = dynamic if dynamic in (True, False) else None

    # A model with lazy modules not yet run (nn.LazyLinear): an export script exports it as its factory built it,
    # and the eager run below would initialise them, so export goes first (EX710's claim is about that model).
    export_first = "export" in enabled and _has_lazy_parameters(model)
    if export_first:
        _check_export(model, sets)

    t = _stage("eager")
    try:
        attrs = [isolate.simple_attrs(model)]
        with coverage, torch.no_grad():
            for i, args in enumerate(sets):
                _STATE["stage"] = f"eager (input set {i})"
                coverage.start_set()
                model(*args)
                attrs.append(isolate.simple_attrs(model))
    except BaseException as err:  # noqa: BLE001
        _STATE.update(status="error", error=_error(err), coverage=coverage.as_json(),
                      module_coverage=coverage.module_json())
        _STATE["error"]["stage"] = _STATE["stage"]
        _write()
        return 0
    _STATE["timings"]["eager"] = round(time.perf_counter() - t, 4)
    _STATE["coverage"] = coverage.as_json()
    _STATE["module_coverage"] = coverage.module_json()
    # the lines the first input set ran: what torch.jit.trace and torch.export run, on that set alone
    _STATE["coverage_first_set"] = {f: sorted(int(n) for n in hits) for f, hits in
                                    (coverage.set_hits[0] if coverage.set_hits else {}).items()}
    # the lines the input sets ran (not the import and the factory, which build the model and compile nothing)
    forward: dict[str, set[int]] = {}
    for per_set in coverage.set_hits:
        for f, hits in per_set.items():
            forward.setdefault(f, set()).update(int(n) for n in hits)
    _STATE["coverage_forward"] = {f: sorted(v) for f, v in forward.items()}
    # per input set, how often each line ran and each function was called: where a loop runs another number of
    # times per call for another input, a trace (which unrolls the loop for the first set) is wrong for it
    _STATE["coverage_set_counts"] = [{f: {str(n): c for n, c in hits.items()} for f, hits in per.items()}
                                     for per in coverage.set_hits]
    _STATE["coverage_set_calls"] = [{f: {str(n): c for n, c in hits.items()} for f, hits in per.items()}
                                    for per in coverage.set_calls]
    coverage.changed_attrs = isolate.changed_attrs(attrs)
    _write()

    if "dynamo" in enabled or "recompile" in enabled:
        t = _stage("dynamo")
        # Recompiles show over several calls: the input sets are cycled to at least `calls` compiled calls.
        calls = [sets[i % len(sets)] for i in range(max(len(sets), int(spec.get("calls") or 0)))]
        report = observe.run_dynamo(model, calls, backend=spec.get("backend", "eager"), dynamic=_STATE["dynamic"])
        _done("dynamo", t, {
            "graph_count": report.graph_count, "frames_total": report.frames_total, "frames_ok": report.frames_ok,
            "skipped_frames": report.skipped_frames, "error": report.error,
            "error_frames": [list(fr) for fr in report.error_frames[-4:]],
            "breaks": [_break_site(b) for b in report.breaks],
            "recompiles": [{"function": e.function, "file": e.filename, "line": e.lineno, "reasons": e.reasons[:4],
                            "locations": e.locations[:8], "resumed_break_line": e.resumed_break_line,
                            "on_break_value": e.on_break_value} for e in report.recompile_events()],
        })
    if "torchscript" in enabled:
        t = _stage("torchscript")
        s = observe.run_script(model, sets)
        _done("torchscript", t, {"ok": s.ok, "error": s.error[:500], "file": s.filename, "line": s.lineno})
    if "trace" in enabled:
        t = _stage("trace")
        tr = observe.run_trace(model, sets, is_user_file=is_user_file)
        _done("trace", t, {"error": tr.error, "diverged": tr.diverged, "divergence": tr.divergence[:500],
                           "graph_lines": tr.graph_lines, "failure_frames": [list(f) for f in tr.failure_frames[:20]],
                           "warnings": [{"message": m[:300], "file": f, "line": n, "user_frame": list(u) if u else None}
                                        for (m, f, n), u in zip(tr.warnings, tr.warning_user_frames)]})
    if "export" in enabled and not export_first:
        _check_export(model, sets)
    if spec.get("isolate", True):
        _isolate(model, sets, coverage, spec, enabled)
    _STATE["status"] = "ok"
    _STATE["stage"] = "done"
    _write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
