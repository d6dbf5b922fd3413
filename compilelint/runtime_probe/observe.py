"""Observe what real torch does with a callable: graph breaks, skipped frames, recompiles, TorchScript
and trace verdicts. Shared by the rule-example harness (tests) and the probe (child process).

Graph breaks are read from torch's own graph-break log records (logger
`torch._dynamo.symbolic_convert.__graph_breaks` and friends), not from `explain()`, which is blind to
frames Dynamo skips whole (a break inside a loop makes Dynamo run the entire frame eagerly: GB7000).
"""

from __future__ import annotations

import contextlib
import logging
import re
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

_BREAK_AT = re.compile(r"Graph break in user code at (?P<file>.+?):(?P<line>\d+)")
_GB_LINK = re.compile(r"gb/gb(?P<id>\d{4})\.html")
_SKIP_AT = re.compile(r"frame skipped: (?P<fn>\S+) \((?P<file>.+?) line (?P<line>\d+)\)")
_RECOMPILE = re.compile(r"Recompiling function (?P<fn>\S+) in (?P<file>.+?):(?P<line>\d+)")
_GUARD_LINE = re.compile(r"^\s*- \d+/\d+: (?P<guard>.*)$")
_STACK_LINE = re.compile(r'^\s*-\s+File "(?P<file>[^"]+)", line (?P<line>\d+)')
_RESUME_AT = re.compile(r"torch_dynamo_resume_in_\w+?_at_(\d+)$")
_USER_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+)', re.M)
_TS_LOCATION = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')


@dataclass
class BreakEvent:
    gb_ids: list[str]  # primary first; "GB7000" (graph break in loop) may follow
    filename: str
    lineno: int
    frame_skipped: bool
    message: str
    # (file, line) of the "User code traceback:" frames, outermost first: a break inside a callee
    # (json.dumps, any(), os.path.exists...) is reported at the library's line, and the user's call
    # that led there is the deepest frame in the user's file.
    user_frames: list[tuple[str, int]] = field(default_factory=list)

    @property
    def gb_id(self) -> str | None:
        return self.gb_ids[0] if self.gb_ids else None


@dataclass
class RecompileEvent:
    """One recompile (one record on `torch._dynamo.guards.__recompiles`)."""

    function: str  # the code object recompiled, e.g. "forward" or "torch_dynamo_resume_in_forward_at_17"
    filename: str
    lineno: int  # first line of that code object
    reasons: list[str]  # guard failures, newest cache entry first, e.g. "self.calls == 1"
    locations: list[tuple[str, int]]  # user lines whose values the failing guards came from (newest first)
    message: str

    @property
    def resumed_break_line(self) -> int | None:
        """For a resume function after a graph break ("..._at_17"): the line of that break."""
        m = _RESUME_AT.search(self.function)
        return int(m.group(1)) if m else None

    @property
    def on_break_value(self) -> bool:
        """The newest guard failure is on a value the graph break handed over (`___stack0 == 1.5`,
        `len(___stack0) == 2`)."""
        return bool(self.reasons) and "___stack" in self.reasons[0]


def parse_recompile(message: str) -> RecompileEvent | None:
    head = _RECOMPILE.search(message)
    if head is None:
        return None
    reasons: list[str] = []
    locations: list[tuple[str, int]] = []
    for line in message.splitlines():
        guard = _GUARD_LINE.match(line)
        if guard:
            reasons.append(guard.group("guard").split("  #")[0].strip())
            continue
        where = _STACK_LINE.match(line)
        if where and (where.group("file"), int(where.group("line"))) not in locations:
            locations.append((where.group("file"), int(where.group("line"))))
    return RecompileEvent(function=head.group("fn"), filename=head.group("file"), lineno=int(head.group("line")),
                          reasons=reasons, locations=locations, message=message)


@dataclass
class DynamoReport:
    breaks: list[BreakEvent] = field(default_factory=list)
    recompiles: list[str] = field(default_factory=list)  # one guard-failure message per recompile
    frames_total: int = 0
    frames_ok: int = 0
    graph_count: int = 0
    error: str | None = None
    # (file, line) of each `File "...", line N` in the error's message: Dynamo's "from user code:" stack,
    # innermost last (an InternalTorchDynamoError names the user line it was tracing)
    error_frames: list[tuple[str, int]] = field(default_factory=list)

    @property
    def skipped_frames(self) -> int:
        return max(0, self.frames_total - self.frames_ok)

    def recompile_events(self) -> list[RecompileEvent]:
        return [e for e in map(parse_recompile, self.recompiles) if e is not None]


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append((record.name, record.getMessage()))
        except Exception:  # a record whose formatting fails tells us nothing
            pass


@contextlib.contextmanager
def _dynamo_logs():
    import torch._logging

    handler = _Collect()
    # Records from torch._dynamo.guards.* propagate to torch._dynamo: one handler there sees each once.
    loggers = [logging.getLogger(n) for n in ("torch._dynamo", "torch._guards")]
    torch._logging.set_logs(graph_breaks=True, recompiles=True)
    # set_logs installs torch's own stderr handlers; keep them quiet, keep our records.
    silenced = []
    for lg in loggers:
        lg.addHandler(handler)
    for name in ("torch._dynamo", "torch._dynamo.symbolic_convert", "torch._dynamo.convert_frame",
                 "torch._dynamo.guards", "torch._dynamo.variables.tensor"):
        lg = logging.getLogger(name)
        for h in list(lg.handlers):
            if h is not handler and isinstance(h, logging.StreamHandler):
                lg.removeHandler(h)
                silenced.append((lg, h))
    try:
        yield handler.records
    finally:
        for lg in loggers:
            lg.removeHandler(handler)
        torch._logging.set_logs()
        for lg, h in silenced:
            lg.addHandler(h)


def parse_break_records(records: list[tuple[str, str]]) -> list[BreakEvent]:
    events: list[BreakEvent] = []
    for name, message in records:
        if not name.endswith("__graph_breaks"):
            continue
        at = _BREAK_AT.search(message)
        if at is None:
            continue
        ids = [f"GB{m.group('id')}" for m in _GB_LINK.finditer(message)]
        _, _, tb = message.rpartition("User code traceback:")
        frames = [(m.group("file"), int(m.group("line"))) for m in _USER_FRAME.finditer(tb)] if tb else []
        events.append(BreakEvent(gb_ids=list(dict.fromkeys(ids)), filename=at.group("file"),
                                 lineno=int(at.group("line")), frame_skipped="Skipping the function" in message
                                 or "frame skipped" in message, message=message, user_frames=frames))
    return events


def run_dynamo(fn: Callable, input_sets: list[tuple], *, backend: str = "eager", dynamic: bool | None = None,
               fullgraph: bool = False, configure: Callable[[], Any] | None = None) -> DynamoReport:
    """Compile `fn` and call it on each input set; collect breaks, skipped frames and recompiles."""
    import torch
    import torch._dynamo
    import torch.distributions
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    report = DynamoReport()
    # The first time Dynamo runs in a process it switches torch.distributions' argument validation off for the
    # whole process (torch._dynamo.eval_frame.TorchPatcher.patch, 2.13), and never back. Compiled code runs with
    # it off, as it would; afterwards the previous setting returns, so an export checked later in the same
    # process is judged as an export script on its own would run it (EX720).
    validate = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(False)
    try:
        _compile_and_run(fn, input_sets, report, backend, dynamic, fullgraph, configure)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)
    report.frames_total = int(counters["frames"].get("total", 0))
    report.frames_ok = int(counters["frames"].get("ok", 0))
    report.graph_count = int(counters["stats"].get("unique_graphs", 0))
    torch._dynamo.reset()
    return report


def _compile_and_run(fn: Callable, input_sets: list[tuple], report: "DynamoReport", backend: str,
                     dynamic: bool | None, fullgraph: bool, configure: Callable[[], Any] | None) -> None:
    import torch

    with _dynamo_logs() as records, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = torch.compile(fn, backend=backend, dynamic=dynamic, fullgraph=fullgraph)
        try:
            if configure is not None:
                configure()
            for args in input_sets:
                compiled(*args)
        except Exception as err:  # a fullgraph failure or a crash in user code is a result
            report.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            report.error_frames = [(m.group("file"), int(m.group("line"))) for m in _TS_LOCATION.finditer(str(err))]
    report.breaks = parse_break_records(records)
    report.recompiles = [m for n, m in records if n.endswith("__recompiles") and "Recompiling function" in m]


@dataclass
class ScriptReport:
    ok: bool
    error: str = ""
    filename: str | None = None
    lineno: int | None = None


def run_script(obj: Any, call_inputs: list[tuple] | None = None) -> ScriptReport:
    """`torch.jit.script(obj)`, then (optionally) call the scripted object on each input set."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scripted = torch.jit.script(obj)
            for args in call_inputs or ():
                scripted(*args)
        except Exception as err:
            text = str(err)
            where = _TS_LOCATION.findall(text)
            filename, lineno = (where[-1][0], int(where[-1][1])) if where else (None, None)
            first = next((ln for ln in text.splitlines() if ln.strip()), "")
            return ScriptReport(ok=False, error=f"{type(err).__name__}: {first}", filename=filename, lineno=lineno)
    return ScriptReport(ok=True)


# A frame of TorchScript's "Traceback of TorchScript" for a traced graph: `/path/model.py(215): forward`.
_INTERPRETER_FRAME = re.compile(r"^(\S.*?)\((\d+)\): \S+$", re.MULTILINE)


@dataclass
class TraceReport:
    warnings: list[tuple[str, str, int]] = field(default_factory=list)  # (message, file, line)
    # per warning, the deepest frame of user code on the stack when it was raised (None without is_user_file):
    # a warning raised inside torch's own code names torch's line; this is the user's call that led there
    warning_user_frames: list[tuple[str, int] | None] = field(default_factory=list)
    diverged: bool = False
    divergence: str = ""
    error: str | None = None
    graph_lines: dict[str, dict[str, int]] = field(default_factory=dict)  # {file: {line: nodes recorded there}}
    # where the traced graph failed on another input set: the frames TorchScript's interpreter names for the failing
    # op (the Python lines that recorded it, innermost first), e.g. a `view` sized by a value the trace froze
    failure_frames: list[tuple[str, int]] = field(default_factory=list)

    @property
    def frozen(self) -> bool:
        return bool(self.warnings) or self.diverged


def _same(a: Any, b: Any) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.allclose(a, b, atol=1e-5, rtol=1e-4, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def _tensor_state(obj: Any) -> list:
    """The module's parameters and buffers with a copy of each, so a stateful forward (a buffer counter)
    can be put back between the eager and the traced call: otherwise they see different state."""
    import torch

    if not isinstance(obj, torch.nn.Module):
        return []
    with torch.no_grad():
        return [(t, t.detach().clone()) for t in list(obj.parameters()) + list(obj.buffers())]


def _restore(state: list) -> None:
    import torch

    with torch.no_grad():
        for tensor, saved in state:
            tensor.copy_(saved)


def _snapshot(value: Any) -> Any:
    """Outputs copied, so a returned buffer is not changed afterwards by the next call."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)(_snapshot(v) for v in value) if not hasattr(value, "_fields") else \
            type(value)(*(_snapshot(v) for v in value))
    if isinstance(value, dict):
        return {k: _snapshot(v) for k, v in value.items()}
    return value


def run_trace(obj: Any, input_sets: list[tuple], *, is_user_file: Callable[[str], bool] | None = None) -> TraceReport:
    """Trace on the first input set; then call eager on every input set in order, put the module's tensor
    state back to where it was before tracing, call the traced module on the same sets in the same order,
    and compare. Both sides start from the same parameters and buffers and see the same sequence, so a
    buffer updated in forward is compared fairly, and an update the trace froze shows on a later call."""
    import torch

    report = TraceReport()
    state = _tensor_state(obj)
    caught: list[tuple[warnings.WarningMessage, tuple[str, int] | None]] = []

    def record(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001, ANN202
        user = None
        if is_user_file is not None:
            import traceback

            frames = [f for f in traceback.extract_stack()[:-1] if is_user_file(f.filename)]
            user = (frames[-1].filename, frames[-1].lineno) if frames else None
        caught.append((warnings.WarningMessage(message, category, filename, lineno), user))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = record
        try:
            traced = torch.jit.trace(obj, input_sets[0], check_trace=False, strict=False)
        except Exception as err:
            report.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            return report
    kept = [(w, u) for w, u in caught if issubclass(w.category, torch.jit.TracerWarning)]
    report.warnings = [(str(w.message), w.filename, w.lineno) for w, _ in kept]
    report.warning_user_frames = [u for _, u in kept]
    if is_user_file is not None:
        from compilelint.runtime_probe.isolate import traced_lines

        report.graph_lines = traced_lines(traced, is_user_file)
    for side in ("eager", "traced"):
        _restore(state)
        fn = obj if side == "eager" else traced
        outputs = []
        for i, args in enumerate(input_sets):
            try:
                with torch.no_grad():
                    outputs.append(_snapshot(fn(*args)))
            except Exception as err:
                report.diverged = True
                first = next((ln for ln in str(err).splitlines() if ln.strip()), "")
                report.divergence = f"input set {i}: {side} call failed: {type(err).__name__}: {first}"
                if side == "traced":
                    report.failure_frames = [(m.group(1), int(m.group(2))) for m in
                                             _INTERPRETER_FRAME.finditer(str(err))]
                _restore(state)
                return report
        if side == "eager":
            expected = outputs
    _restore(state)
    for i, (want, got) in enumerate(zip(expected, outputs)):
        if not _same(want, got):
            report.diverged = True
            report.divergence = f"input set {i}: traced output differs from eager"
            break
    return report


@dataclass
class ExportReport:
    ok: bool
    error: str = ""
    filename: str | None = None
    lineno: int | None = None
    # every data-dependent guard export meets, the first one included: export itself stops at its first
    # error; run again with real-tensor propagation it resolves each guard with the real value and goes on
    more: list[dict] = field(default_factory=list)


def _user_location(err: BaseException, text: str, is_user_file: Callable[[str], bool]) -> tuple[str | None, int | None]:
    """Where in user code an export/script error points: a `File "...", line N` in torch's message
    (export puts the user stack there), else the innermost user frame of the traceback."""
    for filename, line in reversed(_TS_LOCATION.findall(text)):
        if is_user_file(filename):
            return filename, int(line)
    import traceback

    frames = [f for f in traceback.extract_tb(err.__traceback__) if is_user_file(f.filename)]
    if frames:
        return frames[-1].filename, frames[-1].lineno
    return None, None


def run_export(obj: Any, args: tuple, *, is_user_file: Callable[[str], bool] = lambda f: "/torch/" not in f,
               strict: bool = False) -> ExportReport:
    """`torch.export.export(obj, args)`; on failure, the error and the user line it points to."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.export.export(obj, tuple(args), strict=strict)
        except Exception as err:
            text = str(err)
            filename, lineno = _user_location(err, text, is_user_file)
            first = next((ln for ln in text.splitlines() if ln.strip()), "")
            return ExportReport(ok=False, error=f"{type(err).__name__}: {first}"[:500], filename=filename, lineno=lineno,
                                more=_guards_past_first_error(obj, args, is_user_file))
    return ExportReport(ok=True)


def _guards_past_first_error(obj: Any, args: tuple, is_user_file: Callable[[str], bool]) -> list[dict]:
    """[{file, line, error}] of each data-dependent guard export meets, at its innermost user frame: export run
    again with real-tensor propagation (what torch.export.draft_export does, at a quarter of its cost here),
    where torch resolves each such guard with the real value and logs it instead of failing, so the guards
    after the first failure show too. [] where the switch is missing or that export fails itself."""
    import logging
    import traceback

    import torch

    try:
        import torch._functorch.config as functorch_config
    except ImportError:
        return []
    if not hasattr(functorch_config, "fake_tensor_propagate_real_tensors"):
        return []
    seen: dict[tuple[str, int], str] = {}

    class _Guards(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "propagate_real_tensors" not in message:
                return
            user = [f for f in traceback.extract_stack() if is_user_file(f.filename)]
            if user and (user[-1].filename, user[-1].lineno) not in seen:
                expr = message.split("propagate_real_tensors", 1)[1].strip()
                seen[(user[-1].filename, user[-1].lineno)] = f"data-dependent guard {expr}"[:300]

    logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
    handler, propagate = _Guards(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False  # torch would print each one as a warning
    try:
        with warnings.catch_warnings(), functorch_config.patch(fake_tensor_propagate_real_tensors=True):
            warnings.simplefilter("ignore")
            torch.export.export(obj, tuple(args), strict=False)
    except Exception:  # noqa: BLE001 - an optional, best-effort second look: keep what was logged
        pass
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
    return [{"file": f, "line": n, "error": e} for (f, n), e in seen.items()]
