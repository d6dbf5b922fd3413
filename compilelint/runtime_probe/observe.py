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
class DynamoReport:
    breaks: list[BreakEvent] = field(default_factory=list)
    recompiles: list[str] = field(default_factory=list)  # one guard-failure message per recompile
    frames_total: int = 0
    frames_ok: int = 0
    graph_count: int = 0
    error: str | None = None

    @property
    def skipped_frames(self) -> int:
        return max(0, self.frames_total - self.frames_ok)


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
    loggers = [logging.getLogger(n) for n in ("torch._dynamo", "torch._dynamo.guards", "torch._guards")]
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
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    report = DynamoReport()
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
    report.breaks = parse_break_records(records)
    report.recompiles = [m for n, m in records if n.endswith("__recompiles") and "Recompiling function" in m]
    report.frames_total = int(counters["frames"].get("total", 0))
    report.frames_ok = int(counters["frames"].get("ok", 0))
    report.graph_count = int(counters["stats"].get("unique_graphs", 0))
    torch._dynamo.reset()
    return report


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


@dataclass
class TraceReport:
    warnings: list[tuple[str, str, int]] = field(default_factory=list)  # (message, file, line)
    diverged: bool = False
    divergence: str = ""
    error: str | None = None

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


def run_trace(obj: Any, input_sets: list[tuple]) -> TraceReport:
    """Trace on the first input set; compare traced and eager outputs on every input set."""
    import torch

    report = TraceReport()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            traced = torch.jit.trace(obj, input_sets[0], check_trace=False, strict=False)
        except Exception as err:
            report.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            return report
    report.warnings = [(str(w.message), w.filename, w.lineno) for w in caught
                       if issubclass(w.category, torch.jit.TracerWarning)]
    for i, args in enumerate(input_sets):
        try:
            with torch.no_grad():
                expected = obj(*args)
                got = traced(*args)
        except Exception as err:
            report.diverged = True
            report.divergence = f"input set {i}: traced call failed: {type(err).__name__}: {err}"
            break
        if not _same(expected, got):
            report.diverged = True
            report.divergence = f"input set {i}: traced output differs from eager"
            break
    return report
