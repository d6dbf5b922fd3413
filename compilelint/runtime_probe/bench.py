"""What a fix is worth: an unfixed model against its fixed twin, eager and compiled, on the same inputs,
in one child process, every variant timed round by round, interleaved, so that drift on the machine
(clocks, other load, the allocator) falls on every variant alike.

Variants (columns), each on a fresh model from its factory:
  eager_unfixed, compiled_unfixed, eager_fixed, compiled_fixed        (torch.compile default mode)
  compiled_unfixed_ro, compiled_fixed_ro                              (mode="reduce-overhead"; CUDA only)
  fused_fixed, compiled_fused, compiled_fused_ro                      (the pair's `make_fused`: the fixed model
                                                                       with the bundled kernels; CUDA only)
Setup, one variant after the other: build, compile, the first round over the input sets (its time, compile
included, is `first_round_s`, never part of the steady state), warm-up rounds; graphs, graph breaks and
recompiles are counted per variant (each compiled variant gets its own copy of the forward's code, so one
variant's compiles never count against another's recompile limit). Then timed rounds: in round r every
variant runs each input set once, in an order rotated by r; a round's time is the sum of its calls.
Rounds go on until `rounds` are done or `seconds` have passed (at least `min_rounds`).

Each speedup (SPEEDUPS) is the ratio of the two variants' median round times, with a 95 % interval from a
bootstrap over rounds (rounds resampled jointly: the variants of one round ran side by side) and a verdict:
"faster" or "slower" when the interval lies above or below 1, else "no measurable difference". The pair's
deployed mode (its fixed module's `DEPLOY`: "reduce-overhead" for small launch-bound heads, "default" for
large models; reduce-overhead needs CUDA) names the headline ratio, `deployed`.

A target is `path/to/file.py:factory` or `package.module:factory`; the factory takes `device` (and
`scale`, if it accepts one: an int, or "deploy" for the pairs' deployment sizes) and returns
`(model, [input_set, ...])`.

Parent side: `run_bench(...)` starts `python -m compilelint.runtime_probe.bench --child ...`, which rewrites
its JSON after each variant's setup and every few seconds of timed rounds; a crash, hang, OOM or timeout in
the child is reported as an error with what the JSON held by then (columns set up, rounds timed), not
raised. Rendering: `render_table`, `render_html` (a self-contained HTML page with inline SVG bars).
"""

from __future__ import annotations

import argparse
import html
import importlib
import importlib.util
import inspect
import json
import logging
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

VARIANTS = ("eager_unfixed", "compiled_unfixed", "eager_fixed", "compiled_fixed",
            "compiled_unfixed_ro", "compiled_fixed_ro", "fused_fixed", "compiled_fused", "compiled_fused_ro")
LABELS = {
    "eager_unfixed": "eager, unfixed", "compiled_unfixed": "compiled, unfixed",
    "eager_fixed": "eager, fixed", "compiled_fixed": "compiled, fixed",
    "compiled_unfixed_ro": "compiled reduce-overhead, unfixed",
    "compiled_fixed_ro": "compiled reduce-overhead, fixed", "fused_fixed": "fixed + bundled kernels, eager",
    "compiled_fused": "fixed + bundled kernels, compiled",
    "compiled_fused_ro": "fixed + bundled kernels, compiled reduce-overhead",
}
# name -> (faster, slower): speedup = slower's median round time / faster's
SPEEDUPS = {
    "compiled_fixed_vs_compiled_unfixed": ("compiled_fixed", "compiled_unfixed"),
    "compiled_fixed_ro_vs_compiled_unfixed_ro": ("compiled_fixed_ro", "compiled_unfixed_ro"),
    "compiled_fixed_vs_eager_unfixed": ("compiled_fixed", "eager_unfixed"),
    "compiled_fixed_ro_vs_eager_unfixed": ("compiled_fixed_ro", "eager_unfixed"),
    "fused_fixed_vs_compiled_fixed": ("fused_fixed", "compiled_fixed"),
    "compiled_fused_vs_compiled_fixed": ("compiled_fused", "compiled_fixed"),
    "compiled_fused_ro_vs_compiled_fixed_ro": ("compiled_fused_ro", "compiled_fixed_ro"),
}
# the deployed mode -> (fixed vs unfixed, fused vs fixed), both compiled in that mode
DEPLOYED = {"default": ("compiled_fixed_vs_compiled_unfixed", "compiled_fused_vs_compiled_fixed"),
            "reduce-overhead": ("compiled_fixed_ro_vs_compiled_unfixed_ro", "compiled_fused_ro_vs_compiled_fixed_ro")}
NO_DIFFERENCE = "no measurable difference"
BOOTSTRAP_RESAMPLES = 2000
ROOT = Path(__file__).resolve().parents[2]


# -- targets ---------------------------------------------------------------------------------------
def load_factory(target: str):  # noqa: ANN201
    """`file.py:name` or `package.module:name` -> (the callable, its module)."""
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        raise ValueError(f"target {target!r}: expected PATH.py:FACTORY or package.module:FACTORY")
    if where.endswith(".py") or os.path.sep in where or os.path.exists(where):
        path = Path(where).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"target {target!r}: no such file {where}")
        mod_name = f"_compilelint_target_{abs(hash(str(path)))}"
        module = sys.modules.get(mod_name)
        if module is None:
            spec = importlib.util.spec_from_file_location(mod_name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            spec.loader.exec_module(module)
    else:
        module = importlib.import_module(where)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise AttributeError(f"target {target!r}: {name} is not a callable in {module.__name__}")
    return factory, module


def _call_factory(factory, device: str, scale: int):  # noqa: ANN001, ANN202
    params = inspect.signature(factory).parameters
    kwargs: dict[str, Any] = {}
    if "device" in params:
        kwargs["device"] = device
    if "scale" in params:
        kwargs["scale"] = scale
    model, inputs = factory(**kwargs)
    if hasattr(model, "to") and "device" not in params:
        model = model.to(device)
    return model, [tuple(args) for args in inputs]


# -- the child: measurements -----------------------------------------------------------------------
def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _to_cpu(out: Any) -> Any:
    import torch

    if isinstance(out, torch.Tensor):
        return out.detach().to("cpu", copy=True)
    if isinstance(out, (list, tuple)):
        return type(out)(_to_cpu(o) for o in out)
    if isinstance(out, dict):
        return {k: _to_cpu(v) for k, v in out.items()}
    return out


def _close(a: Any, b: Any, tol: float) -> bool:
    import torch

    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape:
            return False
        if not a.is_floating_point():
            return bool(torch.equal(a, b.to(a.dtype)))
        return bool(torch.allclose(a.float(), b.float(), atol=tol, rtol=tol, equal_nan=True))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], tol) for k in a)
    return a == b


def parse_scale(value: str | int) -> int | str:
    """`--scale`: a positive int (the pairs' small sizes times it) or "deploy" (their deployment sizes)."""
    if value == "deploy" or isinstance(value, int):
        return value
    try:
        number = int(value)
    except ValueError:
        raise ValueError(f"scale {value!r}: a positive integer or 'deploy'") from None
    if number < 1:
        raise ValueError(f"scale {value!r}: a positive integer or 'deploy'")
    return number


def _own_forward(model: Any) -> Any:
    """Give `model` a subclass of its class whose forward is a copy of the forward's code object. Dynamo keeps
    its compiled entries (and counts recompiles against its limit) per code object: without this, two compiled
    variants of one class (default and reduce-overhead) would share one cache and one recompile limit."""
    cls = type(model)
    fwd = getattr(cls, "forward", None)
    if not isinstance(fwd, types.FunctionType):
        return model
    clone = types.FunctionType(fwd.__code__.replace(), fwd.__globals__, fwd.__name__, fwd.__defaults__,
                               fwd.__closure__)
    clone.__kwdefaults__, clone.__qualname__, clone.__doc__ = fwd.__kwdefaults__, fwd.__qualname__, fwd.__doc__
    try:
        model.__class__ = type(cls.__name__, (cls,), {"forward": clone, "__module__": cls.__module__,
                                                      "__doc__": cls.__doc__})
    except TypeError:  # a class whose instances cannot change class: shared cache, as before
        pass
    return model


def rotated(variants: list[str], round_index: int) -> list[str]:
    """The order of round `round_index`: the variants rotated by it, so each one takes every position in turn
    (nobody always runs first after a pause, or always right after the slowest variant)."""
    k = round_index % len(variants) if variants else 0
    return variants[k:] + variants[:k]


def ratio_interval(fast: list[float], slow: list[float], resamples: int = BOOTSTRAP_RESAMPLES,
                   seed: int = 0) -> tuple[float, float, float]:
    """(median(slow) / median(fast), low, high): the ratio and its 95 % percentile interval from a bootstrap
    over rounds. `fast[i]` and `slow[i]` are round i's times, resampled together."""
    n = min(len(fast), len(slow))
    if n == 0:
        raise ValueError("no rounds")
    fast, slow = fast[:n], slow[:n]
    point = statistics.median(slow) / statistics.median(fast)
    if n == 1:
        return point, point, point
    rng = random.Random(seed)
    stats = []
    for _ in range(resamples):
        idx = [rng.randrange(n) for _ in range(n)]
        stats.append(statistics.median(slow[i] for i in idx) / statistics.median(fast[i] for i in idx))
    stats.sort()
    return point, _percentile(stats, 0.025), _percentile(stats, 0.975)


def verdict(low: float, high: float) -> str:
    if low > 1.0:
        return "faster"
    if high < 1.0:
        return "slower"
    return NO_DIFFERENCE


class _Variant:
    """One column: its model, its inputs, and what Dynamo did while it ran."""

    def __init__(self, name: str, fn: Any, inputs: list, ro: bool) -> None:
        self.name, self.fn, self.inputs, self.ro = name, fn, inputs, ro
        self.rounds_s: list[float] = []
        self.calls_s: list[list[float]] = [[] for _ in inputs]
        self.graphs = self.frames_total = self.frames_ok = 0
        self.records: list[tuple[str, str]] = []

    def call(self, args: tuple) -> Any:
        if self.ro:
            import torch

            torch.compiler.cudagraph_mark_step_begin()
        return self.fn(*args)


class _Watch:
    """Attributes Dynamo's counters and log records to the variant that is running."""

    def __init__(self) -> None:
        self.current: _Variant | None = None
        outer = self

        class Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                if outer.current is not None:
                    try:
                        outer.current.records.append((record.name, record.getMessage()))
                    except Exception:  # a record whose formatting fails tells us nothing
                        pass

        self.handler = Handler(logging.DEBUG)

    def __enter__(self) -> "_Watch":
        import torch._logging

        torch._logging.set_logs(graph_breaks=True, recompiles=True)
        logging.getLogger("torch._dynamo").addHandler(self.handler)  # break and guard loggers propagate here
        return self

    def __exit__(self, *exc: object) -> None:
        import torch._logging

        logging.getLogger("torch._dynamo").removeHandler(self.handler)
        torch._logging.set_logs()

    def run(self, variant: _Variant, fn: Any) -> Any:
        from torch._dynamo.utils import counters

        before = (counters["stats"].get("unique_graphs", 0), counters["frames"].get("total", 0),
                  counters["frames"].get("ok", 0))
        self.current = variant
        try:
            return fn()
        finally:
            self.current = None
            variant.graphs += int(counters["stats"].get("unique_graphs", 0) - before[0])
            variant.frames_total += int(counters["frames"].get("total", 0) - before[1])
            variant.frames_ok += int(counters["frames"].get("ok", 0) - before[2])


def _setup(name: str, factory: Any, device: str, scale: int | str, dynamic: bool | None, warmup: int,
           backend: str, watch: _Watch) -> tuple[_Variant, list, float, float | None]:
    """Build and compile one variant, run its first round (timed: compile included) and its warm-up rounds.
    Returns the variant, its first round's outputs (on the CPU), that round's seconds and its peak memory."""
    import torch

    cuda = device.startswith("cuda")
    model, inputs = _call_factory(factory, device, scale)
    if hasattr(model, "eval"):
        model.eval()
    compiled = name.startswith("compiled")
    ro = name.endswith("_ro")
    fn = model
    if compiled:
        fn = torch.compile(_own_forward(model), dynamic=dynamic, backend=backend,
                           mode="reduce-overhead" if ro else None)
    variant = _Variant(name, fn, inputs, ro)
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    mem_before = torch.cuda.memory_allocated() if cuda else 0

    def first_round() -> list:
        return [_to_cpu(variant.call(args)) for args in inputs]

    with torch.no_grad():
        t0 = time.perf_counter()
        outputs = watch.run(variant, first_round)
        if cuda:
            torch.cuda.synchronize()
        first = time.perf_counter() - t0
        for _ in range(warmup):
            watch.run(variant, lambda: [variant.call(args) for args in inputs])
        if cuda:
            torch.cuda.synchronize()
    peak = (torch.cuda.max_memory_allocated() - mem_before) / 2**20 if cuda else None
    return variant, outputs, first, peak


def _timed_round(variant: _Variant, sync: Any, watch: _Watch) -> None:
    def body() -> None:
        total = 0.0
        for i, args in enumerate(variant.inputs):
            t = time.perf_counter()
            variant.call(args)
            sync()
            dt = time.perf_counter() - t
            variant.calls_s[i].append(dt)
            total += dt
        variant.rounds_s.append(total)

    watch.run(variant, body)


def _column(variant: _Variant, base: dict) -> dict:
    from compilelint.runtime_probe.observe import parse_break_records

    compiled = variant.name.startswith("compiled")
    breaks = parse_break_records(variant.records) if compiled else []
    calls = [x for xs in variant.calls_s for x in xs]
    out = dict(base)
    out.update({
        "rounds_timed": len(variant.rounds_s),
        "calls_timed": len(calls),
        "median_ms": statistics.median(calls) * 1e3 if calls else None,
        "p99_ms": _percentile(calls, 0.99) * 1e3 if calls else None,
        "round_ms": statistics.median(variant.rounds_s) * 1e3 if variant.rounds_s else None,
        "per_set_median_ms": [statistics.median(xs) * 1e3 for xs in variant.calls_s if xs],
        "rounds_ms": [round(x * 1e3, 6) for x in variant.rounds_s],
        "graphs": variant.graphs if compiled else None,
        "graph_breaks": len(breaks) if compiled else None,
        "graph_break_ids": sorted({b.gb_id for b in breaks if b.gb_id}) if compiled else None,
        "recompiles": sum(1 for n, m in variant.records if n.endswith("__recompiles") and "Recompiling function" in m)
        if compiled else None,
        "frames_skipped": max(0, variant.frames_total - variant.frames_ok) if compiled else None,
    })
    return out


def child_main(unfixed: str, fixed: str, device: str, rounds: int, warmup: int, scale: int | str,
               variants: list[str] | None, tol: float, backend: str = "inductor", json_path: str | None = None,
               seconds: float = 60.0, min_rounds: int = 20, setup_seconds: float = 0.0) -> dict:
    """Set up every wanted variant (by_priority's order; none started once `setup_seconds` have passed, 0: no
    limit), then time them in interleaved rounds; with `json_path`, rewrite the JSON
    after each setup and every 2 s of rounds, so a run cut short (timeout, crash, OOM) keeps what it
    measured."""
    import torch
    import torch._dynamo

    cuda = device.startswith("cuda")
    if cuda and not torch.cuda.is_available():
        raise RuntimeError("--device cuda, but torch sees no CUDA device")
    unfixed_factory, _ = load_factory(unfixed)
    fixed_factory, fixed_module = load_factory(fixed)
    dynamic = getattr(fixed_module, "DYNAMIC", None)
    if scale == "deploy":  # deployment inputs may keep one shape where the small sets vary theirs
        dynamic = getattr(fixed_module, "DEPLOY_DYNAMIC", dynamic)
    fused_factory = getattr(fixed_module, "make_fused", None)
    deploy = getattr(fixed_module, "DEPLOY", "default")
    if deploy == "reduce-overhead" and not cuda:
        deploy = "default"  # CUDA graphs: CUDA only
    tol = max(tol, getattr(fixed_module, "TOLERANCE", {}).get(scale, 0.0))
    out: dict[str, Any] = {
        "unfixed": unfixed, "fixed": fixed, "device": device,
        "device_name": torch.cuda.get_device_name(0) if cuda else "cpu",
        "torch": torch.__version__, "python": sys.version.split()[0], "rounds": rounds, "warmup": warmup,
        "seconds": seconds, "min_rounds": min_rounds, "scale": scale, "dynamic": dynamic, "tolerance": tol,
        "backend": backend, "deployed_mode": deploy,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": {}, "skipped": {}, "errors": {}, "setup": {},
    }

    def write() -> None:
        if json_path:
            Path(json_path).write_text(json.dumps(out, indent=2))

    torch._dynamo.reset()
    wanted = variants or by_priority(deploy)
    live: list[_Variant] = []
    reference = None
    started = time.time()
    with _Watch() as watch:
        for name in wanted:  # an explicit list is set up (and rotated) in its own order
            why = _skip_reason(name, cuda, backend, fused_factory)
            if why:
                (out["errors"] if name not in VARIANTS else out["skipped"])[name] = why
                continue
            if setup_seconds and time.time() - started > setup_seconds and name != "eager_unfixed":
                out["skipped"][name] = f"not set up: the setup budget ({setup_seconds:.0f}s) was spent"
                continue
            factory = fused_factory if "fused" in name else (
                unfixed_factory if name.endswith(("_unfixed", "_unfixed_ro")) else fixed_factory)
            try:
                variant, outputs, first, peak = _setup(name, factory, device, scale, dynamic, warmup, backend, watch)
            except Exception as err:  # one broken column is a result, not the end of the run
                out["errors"][name] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:500]
                continue
            if name == "eager_unfixed":
                reference = outputs
            matches = True if name == "eager_unfixed" else (None if reference is None else _close(reference, outputs, tol))
            out["setup"][name] = {"variant": name, "label": LABELS[name], "first_round_s": first,
                                  "peak_mem_mib": peak, "matches_eager_unfixed": matches}
            live.append(variant)
            sys.stderr.write(f"bench: {name} set up ({first:.1f}s first round), {time.time() - started:.1f}s since start\n")
            out["results"] = {v.name: _column(v, out["setup"][v.name]) for v in live}
            write()
        sync = torch.cuda.synchronize if cuda else (lambda: None)
        names = [v.name for v in live]
        timing_start = last_write = time.time()
        with torch.no_grad():
            for r in range(rounds):
                for name in rotated(names, r):
                    _timed_round(live[names.index(name)], sync, watch)
                now = time.time()
                if now - last_write > 2.0:
                    out["results"] = {v.name: _column(v, out["setup"][v.name]) for v in live}
                    out["timed_s"] = now - timing_start
                    write()
                    last_write = now
                if r + 1 >= min_rounds and now - timing_start > seconds:
                    break
    out["timed_s"] = time.time() - timing_start
    out["results"] = {v.name: _column(v, out["setup"][v.name]) for v in live}
    out["speedups"] = speedups(out["results"])
    out["deployed"] = deployed(out["speedups"], deploy)
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write()
    torch._dynamo.reset()
    return out


def by_priority(deploy: str) -> list[str]:
    """The default setup order: the reference, then the deployed mode's columns (unfixed, fixed, fused), then
    the eager ones, then the other mode's; a setup budget spent part way drops the least needed."""
    ro = deploy == "reduce-overhead"
    first = ["eager_unfixed"] + [f"compiled_{side}" + ("_ro" if ro else "") for side in ("unfixed", "fixed", "fused")]
    rest = [v for v in ("eager_fixed", "fused_fixed") + VARIANTS if v not in first]
    return first + sorted(set(rest), key=rest.index)


def _skip_reason(name: str, cuda: bool, backend: str, fused_factory: Any) -> str | None:
    if name not in VARIANTS:
        return f"unknown variant; choose from {', '.join(VARIANTS)}"
    if name.endswith("_ro") and not cuda:
        return "reduce-overhead is CUDA graphs: CUDA only"
    if name.endswith("_ro") and backend != "inductor":
        return f"reduce-overhead needs the inductor backend, not {backend}"
    if "fused" in name and fused_factory is None:
        return "the pair has no make_fused factory"
    if "fused" in name and not cuda:
        return "bundled Triton kernels: CUDA only"
    return None


def speedups(results: dict) -> dict:
    """Every SPEEDUPS ratio both of whose variants have timed rounds, with its interval and verdict, and the
    fixed model against the unfixed one each in its own best compile mode (the mode of the lower median)."""
    def rounds_of(v: str) -> list[float] | None:
        r = results.get(v)
        return r.get("rounds_ms") if r and r.get("rounds_ms") else None

    pairs = dict(SPEEDUPS)
    best = {}
    for side in ("fixed", "unfixed"):
        modes = [v for v in (f"compiled_{side}", f"compiled_{side}_ro") if rounds_of(v)]
        if modes:
            best[side] = min(modes, key=lambda v: statistics.median(rounds_of(v)))
    if len(best) == 2:
        pairs["best_compiled_fixed_vs_best_compiled_unfixed"] = (best["fixed"], best["unfixed"])
    found = {}
    for key, (fast, slow) in pairs.items():
        a, b = rounds_of(fast), rounds_of(slow)
        if not a or not b:
            continue
        point, low, high = ratio_interval(a, b)
        found[key] = {"ratio": point, "low": low, "high": high, "verdict": verdict(low, high),
                      "faster": fast, "slower": slow, "rounds": min(len(a), len(b))}
    return found


def deployed(found: dict, mode: str) -> dict:
    """The headline: fixed vs unfixed, and fused vs fixed, both compiled in the pair's deployed mode."""
    fix_key, fused_key = DEPLOYED[mode]
    return {"mode": mode, "fix": fix_key if fix_key in found else None,
            "fused": fused_key if fused_key in found else None}


def format_ratio(entry: dict | None) -> str:
    """`1.23x [1.18, 1.30]`: the ratio and its 95 % interval (the verdict is printed beside it)."""
    if not entry:
        return "-"
    return f"{entry['ratio']:.2f}x [{entry['low']:.2f}, {entry['high']:.2f}]"


# -- the parent ------------------------------------------------------------------------------------
def run_bench(unfixed: str, fixed: str, *, device: str = "cpu", rounds: int = 200, warmup: int = 3,
              scale: int | str = 1, variants: list[str] | None = None, tol: float | None = None,
              backend: str = "inductor", timeout: float = 900.0, seconds: float = 60.0,
              min_rounds: int = 20, setup_seconds: float = 0.0) -> dict:
    """Run the comparison in a child process; always returns a dict (with "error" when the child failed, and
    whatever it had measured by then)."""
    tol = tol if tol is not None else (1e-3 if device.startswith("cuda") else 1e-4)
    with tempfile.TemporaryDirectory(prefix="compilelint-bench-") as tmp:
        json_path = Path(tmp) / "bench.json"
        cmd = [sys.executable, "-m", "compilelint.runtime_probe.bench", "--child", unfixed, "--compare", fixed,
               "--device", device, "--rounds", str(rounds), "--warmup", str(warmup), "--scale", str(scale),
               "--tol", str(tol), "--backend", backend, "--json", str(json_path), "--seconds", str(seconds),
               "--min-rounds", str(min_rounds), "--setup-seconds", str(setup_seconds)]
        if variants:
            cmd += ["--variants", ",".join(variants)]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.getcwd(), env.get("PYTHONPATH", "")) if p)
        env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(Path(tmp) / "inductor"))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return _partial(json_path, unfixed, fixed, device, f"timed out after {timeout:.0f}s")
        if proc.returncode == 0 and json_path.exists():
            return json.loads(json_path.read_text())
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-5:]
        return _partial(json_path, unfixed, fixed, device, f"child exited {proc.returncode}: " + " | ".join(tail))


def _partial(json_path: Path, unfixed: str, fixed: str, device: str, error: str) -> dict:
    """What a child cut short had written: the columns it set up and the rounds it timed, with their ratios."""
    try:
        data = json.loads(json_path.read_text())
    except (OSError, ValueError):
        data = {"unfixed": unfixed, "fixed": fixed, "device": device}
    results = data.get("results", {})
    if results:
        data["speedups"] = speedups(results)
        data["deployed"] = deployed(data["speedups"], data.get("deployed_mode", "default"))
    timed = sorted(k for k, r in results.items() if r.get("rounds_timed"))
    data["error"] = f"{error} (set up: {sorted(results)}; timed: {timed})"
    return data


# -- rendering -------------------------------------------------------------------------------------
def _fmt(value: Any, spec: str = ".3f") -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    return format(value, spec)


def render_table(data: dict) -> str:
    if data.get("error") and not data.get("results"):
        return f"bench {data.get('unfixed')} vs {data.get('fixed')}: ERROR {data['error']}\n"
    cold = "cold_first_round_s" in data  # a prime pass compiled first (benchmarks/fixtures_bench.py)
    head = ("variant", "round ms", "median ms", "p99 ms", "rounds", "first round s") + (("cold first s",) if cold else ()) + (
        "peak MiB", "graphs", "breaks", "recompiles", "matches")
    rows = [head]
    for variant in VARIANTS:
        r = data["results"].get(variant)
        if r is None:
            continue
        rows.append((variant, _fmt(r.get("round_ms")), _fmt(r.get("median_ms")), _fmt(r.get("p99_ms")),
                     _fmt(r.get("rounds_timed"), "d"), _fmt(r["first_round_s"], ".2f"))
                    + ((_fmt(r.get("cold_first_round_s"), ".2f"),) if cold else ())
                    + (_fmt(r["peak_mem_mib"], ".1f"), _fmt(r["graphs"], "d"), _fmt(r["graph_breaks"], "d"),
                       _fmt(r["recompiles"], "d"), _fmt(r["matches_eager_unfixed"])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"{data['unfixed']}  vs  {data['fixed']}  on {data['device_name']} (torch {data['torch']}, "
             f"backend {data.get('backend', 'inductor')}, scale {data.get('scale')}, dynamic={data['dynamic']}, "
             f"deployed mode {data.get('deployed_mode', 'default')}; rounds interleaved, "
             f"{data.get('timed_s', 0):.0f}s timed)"]
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    dep = data.get("deployed") or {}
    for key, entry in data.get("speedups", {}).items():
        mark = " (deployed)" if key in (dep.get("fix"), dep.get("fused")) else ""
        lines.append(f"speedup {key.replace('_vs_', ' vs ')}{mark}: {format_ratio(entry)}, {entry['verdict']}")
    for variant, why in data.get("skipped", {}).items():
        lines.append(f"skipped {variant}: {why}")
    for variant, err in data.get("errors", {}).items():
        lines.append(f"ERROR {variant}: {err}")
    if data.get("error"):
        lines.append(f"ERROR: {data['error']}")
    return "\n".join(lines) + "\n"


_COLORS = {"eager_unfixed": "#c9c9c9", "compiled_unfixed": "#e07b39", "eager_fixed": "#9fc5e8",
           "compiled_fixed": "#2b7bba", "compiled_unfixed_ro": "#b85c1e", "compiled_fixed_ro": "#164f7a",
           "fused_fixed": "#8fd19e", "compiled_fused": "#3a9a4a", "compiled_fused_ro": "#1f6b2c"}


LOG_SCALE_SPAN = 10.0  # bars go on a log axis where the largest value is over this many times the smallest


def _bars_svg(title: str, items: list[tuple[str, str, float, str]], unit: str, width: int = 760) -> str:
    """Horizontal bars: items are (variant, label, value, annotation). Where the values span more than a decade
    (a fixed model 40x faster than the broken one), the axis is logarithmic, with a line at each power of ten,
    so the small bars stay readable; otherwise linear from zero."""
    if not items:
        return ""
    label_w, bar_w, row_h = 250, width - 250 - 150, 26
    positive = [v for _, _, v, _ in items if v and v > 0]
    log_scale = len(positive) > 1 and max(positive) / min(positive) > LOG_SCALE_SPAN
    top = 44 if log_scale else 30
    height = top + row_h * len(items) + 10
    vmax = max(v for _, _, v, _ in items) or 1.0
    if log_scale:
        lo, hi = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
        hi = max(hi, lo + 1)

        def length(value: float) -> float:
            if not value or value <= 0:
                return 1.0
            return max(1.0, bar_w * (math.log10(value) - lo) / (hi - lo))
    else:
        def length(value: float) -> float:
            return max(1.0, bar_w * value / vmax)
    heading = f"{title} (log scale)" if log_scale else title
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(heading)}" style="font-family:system-ui,sans-serif;font-size:13px">',
             f'<text x="0" y="18" font-weight="600">{html.escape(heading)}</text>']
    if log_scale:
        for power in range(lo, hi + 1):
            x = label_w + bar_w * (power - lo) / (hi - lo)
            parts.append(f'<line class="decade" x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{height - 6}" '
                         'stroke="#ddd"/>')
            parts.append(f'<text class="tick" x="{x:.1f}" y="{top - 8}" text-anchor="middle" fill="#777" '
                         'font-size="11">'
                         f'{10.0 ** power:g} {html.escape(unit)}</text>')
    for i, (variant, label, value, note) in enumerate(items):
        y = top + i * row_h
        w = length(value)
        parts.append(f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{html.escape(label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 4}" width="{w:.1f}" height="{row_h - 8}" '
                     f'fill="{_COLORS.get(variant, "#888")}"><title>{html.escape(label)}: {value:.4g} {unit}</title></rect>')
        parts.append(f'<text x="{label_w + w + 6:.1f}" y="{y + 17}">{value:.3g} {unit}'
                     f'{(" · " + html.escape(note)) if note else ""}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def pair_section(data: dict) -> str:
    title = f"{data.get('unfixed')} vs {data.get('fixed')}"
    if data.get("error") and not data.get("results"):
        return f"<section><h2>{html.escape(title)}</h2><p class=err>ERROR: {html.escape(data['error'])}</p></section>"
    results = data["results"]
    base = results.get("compiled_unfixed", {}).get("round_ms")
    lat, first = [], []
    for variant in VARIANTS:
        r = results.get(variant)
        if r is None:
            continue
        note = ""
        if base and r.get("round_ms") and variant != "compiled_unfixed":
            note = f"{base / r['round_ms']:.2f}x vs compiled unfixed"
        if r["graph_breaks"]:
            note += (", " if note else "") + f"{r['graph_breaks']} breaks"
        if r["recompiles"]:
            note += (", " if note else "") + f"{r['recompiles']} recompiles"
        if r["matches_eager_unfixed"] is False:
            note += (", " if note else "") + "OUTPUT DIFFERS"
        if r.get("round_ms"):
            lat.append((variant, r["label"], r["round_ms"], note))
        cold = r.get("cold_first_round_s")
        first.append((variant, r["label"], r["first_round_s"], f"cold: {cold:.1f}s" if cold is not None else ""))
    found = data.get("speedups", {})
    dep = data.get("deployed") or {}
    lines = []
    if dep.get("fix"):
        e = found[dep["fix"]]
        lines.append(f"Fixed vs unfixed, compiled in the deployed mode ({html.escape(dep['mode'])}): "
                     f"<b>{html.escape(format_ratio(e))}</b>, {html.escape(e['verdict'])}.")
    if dep.get("fused"):
        e = found[dep["fused"]]
        lines.append(f"Bundled kernels vs the compiled fixed model, same mode: <b>{html.escape(format_ratio(e))}</b>, "
                     f"{html.escape(e['verdict'])}.")
    headline = "".join(f"<p class=headline>{line}</p>" for line in lines)
    ratios = "".join(f"<li>{html.escape(k.replace('_vs_', ' vs '))}: {html.escape(format_ratio(e))}, "
                     f"{html.escape(e['verdict'])}</li>" for k, e in found.items())
    extra = "".join(f"<li>skipped {html.escape(k)}: {html.escape(v)}</li>" for k, v in data.get("skipped", {}).items())
    extra += "".join(f"<li class=err>error {html.escape(k)}: {html.escape(v)}</li>" for k, v in data.get("errors", {}).items())
    if data.get("error"):
        extra += f"<li class=err>ERROR: {html.escape(data['error'])}</li>"
    return (f"<section><h2>{html.escape(title)}</h2>{headline}"
            + _bars_svg("Median time of one round over the input sets (lower is better)", lat, "ms")
            + _bars_svg("First round, compile included (lower is better; with a prime pass, from its caches)", first, "s")
            + (f"<p>Speedups, 95 % interval over rounds:</p><ul>{ratios}</ul>" if ratios else "")
            + f"<details><summary>table</summary><pre>{html.escape(render_table(data))}</pre></details>"
            + (f"<ul>{extra}</ul>" if extra else "") + "</section>")


def summary_svg(runs: list[dict]) -> str:
    items = []
    for data in runs:
        name = data.get("pair") or Path(str(data.get("fixed", "?")).split(":")[0]).stem
        dep = data.get("deployed") or {}
        for key, variant, what in ((dep.get("fix"), "compiled_fixed", "fixed vs unfixed"),
                                   (dep.get("fused"), "compiled_fused", "kernels vs fixed")):
            entry = data.get("speedups", {}).get(key) if key else None
            if entry:
                ro = dep.get("mode") == "reduce-overhead"
                items.append((variant + ("_ro" if ro else ""), f"{name}: {what} ({'ro' if ro else 'default'})",
                              entry["ratio"], f"[{entry['low']:.2f}, {entry['high']:.2f}] {entry['verdict']}"))
    return _bars_svg("Speedups in each pair's deployed mode, both sides compiled (higher is better)", items, "x",
                     width=900)


def render_html(runs: dict | list[dict]) -> str:
    runs = [runs] if isinstance(runs, dict) else runs
    first = next((r for r in runs if not r.get("error")), runs[0] if runs else {})
    meta = (f"{html.escape(str(first.get('device_name', '?')))} · torch {html.escape(str(first.get('torch', '?')))} · "
            f"scale {html.escape(str(first.get('scale', '?')))} · rounds interleaved, up to "
            f"{first.get('rounds', '?')} or {first.get('seconds', '?')} s per pair, after "
            f"{first.get('warmup', '?')} warm-up rounds · {html.escape(str(first.get('started', '')))}")
    body = (summary_svg(runs) if len(runs) > 1 else "") + "".join(pair_section(r) for r in runs)
    return ("<!doctype html><html><head><meta charset=utf-8><title>compilelint bench</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:960px;margin:2em auto;color:#222}"
            "section{border-top:1px solid #ddd;margin-top:1.5em}.headline{font-size:1.15em}.err{color:#b00}"
            "pre{font-size:12px;overflow-x:auto}</style></head><body>"
            f"<h1>What the fixes are worth</h1><p>{meta}</p>"
            "<p>Each bar: the median over timed rounds of one round's time (every input set called once), on "
            "fresh models built by the pair's factories; the variants ran interleaved, round by round, in one "
            "process. Intervals: 95 %, bootstrap over rounds. Compile time is the first round's, shown apart. "
            "Compiled columns count Dynamo's graphs, graph breaks and recompiles over the whole run.</p>"
            f"{body}</body></html>\n")


# -- entry point -----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compilelint.runtime_probe.bench")
    ap.add_argument("unfixed")
    ap.add_argument("--compare", required=True, dest="fixed")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--rounds", type=int, default=200, help="at most this many timed rounds")
    ap.add_argument("--seconds", type=float, default=60.0, help="stop timing after this long (min-rounds done)")
    ap.add_argument("--min-rounds", type=int, default=20)
    ap.add_argument("--setup-seconds", type=float, default=0.0, help="start no variant's setup after this long")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--scale", type=parse_scale, default=1, help="a positive int, or 'deploy'")
    ap.add_argument("--tol", type=float, default=None)
    ap.add_argument("--variants", default="")
    ap.add_argument("--backend", default="inductor", help="torch.compile backend (tests use eager)")
    ap.add_argument("--json", dest="json_path")
    ap.add_argument("--timeout", type=float, default=900.0)
    ap.add_argument("--child", action="store_true", help="measure in this process (the parent uses this)")
    ns = ap.parse_args(argv)
    variants = [v for v in ns.variants.split(",") if v] or None
    if ns.child:
        tol = ns.tol if ns.tol is not None else (1e-3 if ns.device.startswith("cuda") else 1e-4)
        data = child_main(ns.unfixed, ns.fixed, ns.device, ns.rounds, ns.warmup, ns.scale, variants, tol, ns.backend,
                          ns.json_path, ns.seconds, ns.min_rounds, ns.setup_seconds)
    else:
        data = run_bench(ns.unfixed, ns.fixed, device=ns.device, rounds=ns.rounds, warmup=ns.warmup, scale=ns.scale,
                         variants=variants, tol=ns.tol, backend=ns.backend, timeout=ns.timeout, seconds=ns.seconds,
                         min_rounds=ns.min_rounds, setup_seconds=ns.setup_seconds)
        if ns.json_path:
            Path(ns.json_path).write_text(json.dumps(data, indent=2))
    sys.stdout.write(render_table(data))
    return 1 if data.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
