"""What a fix is worth: an unfixed model against its fixed twin, eager and compiled, on the same inputs,
in one run, in a child process.

Columns (variants), each on a fresh model from its factory and a fresh Dynamo cache:
  eager_unfixed, compiled_unfixed, eager_fixed, compiled_fixed        (torch.compile default mode)
  compiled_unfixed_ro, compiled_fixed_ro                              (mode="reduce-overhead"; CUDA only)
  fused_fixed                                                         (the pair's `make_fused`; CUDA only)
For each: median and p99 latency of one call, the time of one round over the input sets (sum of the
per-set medians), the first round's time (compile included), peak memory (CUDA), graphs, graph breaks
and recompiles (Dynamo's own counters and logs), and whether its outputs match eager unfixed.

A target is `path/to/file.py:factory` or `package.module:factory`; the factory takes `device` (and
`scale`, if it accepts one) and returns `(model, [input_set, ...])`.

Parent side: `run_bench(...)` starts `python -m compilelint.runtime_probe.bench --child ...`, which writes
JSON; a crash, hang or OOM in the child is reported as an error, not raised. Rendering: `render_table`,
`render_html` (a self-contained HTML page with inline SVG bars).
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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VARIANTS = ("eager_unfixed", "compiled_unfixed", "eager_fixed", "compiled_fixed",
            "compiled_unfixed_ro", "compiled_fixed_ro", "fused_fixed")
LABELS = {
    "eager_unfixed": "eager, unfixed", "compiled_unfixed": "compiled, unfixed",
    "eager_fixed": "eager, fixed", "compiled_fixed": "compiled, fixed",
    "compiled_unfixed_ro": "compiled reduce-overhead, unfixed",
    "compiled_fixed_ro": "compiled reduce-overhead, fixed", "fused_fixed": "fixed + bundled kernels",
}
# (faster, slower): speedup = slower's round time / faster's round time
SPEEDUPS = {
    "compiled_fixed_vs_compiled_unfixed": ("compiled_fixed", "compiled_unfixed"),
    "compiled_fixed_ro_vs_compiled_unfixed_ro": ("compiled_fixed_ro", "compiled_unfixed_ro"),
    "compiled_fixed_ro_vs_compiled_unfixed": ("compiled_fixed_ro", "compiled_unfixed"),
    "compiled_fixed_vs_eager_unfixed": ("compiled_fixed", "eager_unfixed"),
    "fused_fixed_vs_compiled_fixed": ("fused_fixed", "compiled_fixed"),
}
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
class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.records.append((record.name, record.getMessage()))
        except Exception:  # a record whose formatting fails tells us nothing
            pass


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


def _measure(variant: str, factory, device: str, scale: int, dynamic: bool | None, iters: int,  # noqa: ANN001
             warmup: int, reference: list | None, tol: float, backend: str = "inductor") -> tuple[dict, list]:
    import torch
    import torch._dynamo
    import torch._logging
    from torch._dynamo.utils import counters

    from compilelint.runtime_probe.observe import parse_break_records

    cuda = device.startswith("cuda")

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    torch._dynamo.reset()
    counters.clear()
    model, inputs = _call_factory(factory, device, scale)
    if hasattr(model, "eval"):
        model.eval()
    compiled = variant.startswith("compiled")
    ro = variant.endswith("_ro")
    fn = model
    if compiled:
        fn = torch.compile(model, dynamic=dynamic, backend=backend, mode="reduce-overhead" if ro else None)
    handler = _Records()
    dynamo_logger = logging.getLogger("torch._dynamo")  # one handler: guard and break loggers propagate here
    if compiled:
        torch._logging.set_logs(graph_breaks=True, recompiles=True)
        dynamo_logger.addHandler(handler)
    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    mem_before = torch.cuda.memory_allocated() if cuda else 0

    def call(args: tuple) -> Any:
        if ro:
            torch.compiler.cudagraph_mark_step_begin()
        return fn(*args)

    outputs = []
    try:
        with torch.no_grad():
            sync()
            t0 = time.perf_counter()
            for args in inputs:  # first round: compiles, records graphs
                outputs.append(_to_cpu(call(args)))
            sync()
            first_round = time.perf_counter() - t0
            for _ in range(warmup):
                for args in inputs:
                    call(args)
            sync()
            per_set: list[list[float]] = [[] for _ in inputs]
            for _ in range(iters):
                for i, args in enumerate(inputs):
                    t = time.perf_counter()
                    call(args)
                    sync()
                    per_set[i].append(time.perf_counter() - t)
    finally:
        if compiled:
            dynamo_logger.removeHandler(handler)
            torch._logging.set_logs()
    calls = [x for xs in per_set for x in xs]
    records = handler.records
    result = {
        "variant": variant,
        "label": LABELS[variant],
        "calls_timed": len(calls),
        "median_ms": statistics.median(calls) * 1e3,
        "p99_ms": _percentile(calls, 0.99) * 1e3,
        "round_ms": sum(statistics.median(xs) for xs in per_set) * 1e3,
        "per_set_median_ms": [statistics.median(xs) * 1e3 for xs in per_set],
        "first_round_s": first_round,
        "peak_mem_mib": ((torch.cuda.max_memory_allocated() - mem_before) / 2**20) if cuda else None,
        "graphs": int(counters["stats"].get("unique_graphs", 0)) if compiled else None,
        "graph_breaks": len(parse_break_records(records)) if compiled else None,
        "graph_break_ids": sorted({b.gb_id for b in parse_break_records(records) if b.gb_id}) if compiled else None,
        "recompiles": sum(1 for n, m in records if n.endswith("__recompiles") and "Recompiling function" in m)
        if compiled else None,
        "frames_skipped": max(0, int(counters["frames"].get("total", 0)) - int(counters["frames"].get("ok", 0)))
        if compiled else None,
        "matches_eager_unfixed": None if reference is None else _close(reference, outputs, tol),
    }
    torch._dynamo.reset()
    return result, outputs


def child_main(unfixed: str, fixed: str, device: str, iters: int, warmup: int, scale: int,
               variants: list[str] | None, tol: float, backend: str = "inductor", json_path: str | None = None) -> dict:
    """Measure every wanted variant; with `json_path`, rewrite the JSON after each one, so a run cut short
    (timeout, crash, OOM) keeps the columns it finished."""
    import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError("--device cuda, but torch sees no CUDA device")
    unfixed_factory, unfixed_module = load_factory(unfixed)
    fixed_factory, fixed_module = load_factory(fixed)
    dynamic = getattr(fixed_module, "DYNAMIC", None)
    fused_factory = getattr(fixed_module, "make_fused", None)
    out: dict[str, Any] = {
        "unfixed": unfixed, "fixed": fixed, "device": device,
        "device_name": torch.cuda.get_device_name(0) if device.startswith("cuda") else "cpu",
        "torch": torch.__version__, "python": sys.version.split()[0], "iters": iters, "warmup": warmup,
        "scale": scale, "dynamic": dynamic, "tolerance": tol, "backend": backend,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "results": {}, "skipped": {}, "errors": {},
    }
    wanted = variants or list(VARIANTS)
    reference = None
    started = time.time()
    for variant in (wanted if variants else VARIANTS):  # an explicit list is run in its own order
        if variant not in VARIANTS:
            out["errors"][variant] = f"unknown variant; choose from {', '.join(VARIANTS)}"
            continue
        if variant.endswith("_ro") and not device.startswith("cuda"):
            out["skipped"][variant] = "reduce-overhead is CUDA graphs: CUDA only"
            continue
        if variant.endswith("_ro") and backend != "inductor":
            out["skipped"][variant] = f"reduce-overhead needs the inductor backend, not {backend}"
            continue
        if variant == "fused_fixed":
            if fused_factory is None:
                out["skipped"][variant] = "the pair has no make_fused factory"
                continue
            if not device.startswith("cuda"):
                out["skipped"][variant] = "bundled Triton kernels: CUDA only"
                continue
            factory = fused_factory
        else:
            factory = unfixed_factory if variant.endswith(("_unfixed", "_unfixed_ro")) else fixed_factory
        try:
            result, outputs = _measure(variant, factory, device, scale, dynamic, iters, warmup, reference, tol,
                                       backend)
        except Exception as err:  # one broken column is a result, not the end of the run
            out["errors"][variant] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:500]
            continue
        if variant == "eager_unfixed":
            reference = outputs
            result["matches_eager_unfixed"] = True
        out["results"][variant] = result
        out["speedups"] = speedups(out["results"])
        sys.stderr.write(f"bench: {variant} done in {time.time() - started:.1f}s since start\n")
        if json_path:
            Path(json_path).write_text(json.dumps(out, indent=2))
    out["speedups"] = speedups(out["results"])
    out["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return out


def speedups(results: dict) -> dict:
    found = {}
    for key, (fast, slow) in SPEEDUPS.items():
        if fast in results and slow in results and results[fast]["round_ms"] > 0:
            found[key] = results[slow]["round_ms"] / results[fast]["round_ms"]
    # Each side in its own best compile mode: tiny launch-bound heads gain from a fix only once CUDA graphs
    # (reduce-overhead) remove the per-kernel launch cost, while large models gain in the default mode.
    best = {side: min((results[v]["round_ms"] for v in (f"compiled_{side}", f"compiled_{side}_ro")
                       if v in results and results[v]["round_ms"] > 0), default=None) for side in ("fixed", "unfixed")}
    if best["fixed"] and best["unfixed"]:
        found["best_compiled_fixed_vs_best_compiled_unfixed"] = best["unfixed"] / best["fixed"]
    return found


# -- the parent ------------------------------------------------------------------------------------
def run_bench(unfixed: str, fixed: str, *, device: str = "cpu", iters: int = 50, warmup: int = 5, scale: int = 1,
              variants: list[str] | None = None, tol: float | None = None, backend: str = "inductor",
              timeout: float = 600.0) -> dict:
    """Run the comparison in a child process; always returns a dict (with "error" when the child failed)."""
    tol = tol if tol is not None else (1e-3 if device.startswith("cuda") else 1e-4)
    with tempfile.TemporaryDirectory(prefix="compilelint-bench-") as tmp:
        json_path = Path(tmp) / "bench.json"
        cmd = [sys.executable, "-m", "compilelint.runtime_probe.bench", "--child", unfixed, "--compare", fixed,
               "--device", device, "--iters", str(iters), "--warmup", str(warmup), "--scale", str(scale),
               "--tol", str(tol), "--backend", backend, "--json", str(json_path)]
        if variants:
            cmd += ["--variants", ",".join(variants)]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.getcwd(), env.get("PYTHONPATH", "")) if p)
        env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(Path(tmp) / "inductor"))
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            partial = json.loads(json_path.read_text()) if json_path.exists() else {
                "unfixed": unfixed, "fixed": fixed, "device": device}
            partial["error"] = f"timed out after {timeout:.0f}s (columns finished before: {sorted(partial.get('results', {}))})"
            return partial
        if json_path.exists():
            return json.loads(json_path.read_text())
        tail = (proc.stderr or proc.stdout or "").strip().splitlines()[-5:]
        return {"unfixed": unfixed, "fixed": fixed, "device": device,
                "error": f"child exited {proc.returncode}: " + " | ".join(tail)}


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
    head = ("variant", "median ms", "p99 ms", "round ms", "first round s", "peak MiB", "graphs", "breaks",
            "recompiles", "matches")
    rows = [head]
    for variant in VARIANTS:
        r = data["results"].get(variant)
        if r is None:
            continue
        rows.append((variant, _fmt(r["median_ms"]), _fmt(r["p99_ms"]), _fmt(r["round_ms"]), _fmt(r["first_round_s"], ".2f"),
                     _fmt(r["peak_mem_mib"], ".1f"), _fmt(r["graphs"], "d"), _fmt(r["graph_breaks"], "d"),
                     _fmt(r["recompiles"], "d"), _fmt(r["matches_eager_unfixed"])))
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [f"{data['unfixed']}  vs  {data['fixed']}  on {data['device_name']} (torch {data['torch']}, "
             f"backend {data.get('backend', 'inductor')}, {data['iters']} timed rounds, dynamic={data['dynamic']})"]
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    for key, value in data.get("speedups", {}).items():
        lines.append(f"speedup {key.replace('_vs_', ' vs ')}: {value:.2f}x")
    for variant, why in data.get("skipped", {}).items():
        lines.append(f"skipped {variant}: {why}")
    for variant, err in data.get("errors", {}).items():
        lines.append(f"ERROR {variant}: {err}")
    if data.get("error"):
        lines.append(f"ERROR: {data['error']}")
    return "\n".join(lines) + "\n"


_COLORS = {"eager_unfixed": "#c9c9c9", "compiled_unfixed": "#e07b39", "eager_fixed": "#9fc5e8",
           "compiled_fixed": "#2b7bba", "compiled_unfixed_ro": "#b85c1e", "compiled_fixed_ro": "#164f7a",
           "fused_fixed": "#3a9a4a"}


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
        note = f"{base / r['round_ms']:.2f}x vs compiled unfixed" if base and r["round_ms"] and variant != "compiled_unfixed" else ""
        if r["graph_breaks"]:
            note += (", " if note else "") + f"{r['graph_breaks']} breaks"
        if r["recompiles"]:
            note += (", " if note else "") + f"{r['recompiles']} recompiles"
        if r["matches_eager_unfixed"] is False:
            note += (", " if note else "") + "OUTPUT DIFFERS"
        lat.append((variant, r["label"], r["round_ms"], note))
        first.append((variant, r["label"], r["first_round_s"], ""))
    found = data.get("speedups", {})
    speed = found.get("best_compiled_fixed_vs_best_compiled_unfixed")
    modes = "; ".join(f"{mode}: {found[key]:.2f}x" for mode, key in (
        ("default mode", "compiled_fixed_vs_compiled_unfixed"),
        ("reduce-overhead", "compiled_fixed_ro_vs_compiled_unfixed_ro")) if key in found)
    headline = (f"<p class=headline>The fix makes the compiled model <b>{speed:.2f}x</b> faster, each in its best "
                f"compile mode ({html.escape(modes)}).</p>") if speed else ""
    extra = "".join(f"<li>skipped {html.escape(k)}: {html.escape(v)}</li>" for k, v in data.get("skipped", {}).items())
    extra += "".join(f"<li class=err>error {html.escape(k)}: {html.escape(v)}</li>" for k, v in data.get("errors", {}).items())
    if data.get("error"):
        extra += f"<li class=err>ERROR: {html.escape(data['error'])}</li>"
    return (f"<section><h2>{html.escape(title)}</h2>{headline}"
            + _bars_svg("Time for one round over the input sets (lower is better)", lat, "ms")
            + _bars_svg("First round, compile included (lower is better)", first, "s")
            + f"<details><summary>table</summary><pre>{html.escape(render_table(data))}</pre></details>"
            + (f"<ul>{extra}</ul>" if extra else "") + "</section>")


def summary_svg(runs: list[dict]) -> str:
    items = []
    for data in runs:
        name = Path(str(data.get("fixed", "?")).split(":")[0]).stem
        for key, variant in (("compiled_fixed_vs_compiled_unfixed", "compiled_fixed"),
                             ("compiled_fixed_ro_vs_compiled_unfixed_ro", "compiled_fixed_ro")):
            value = data.get("speedups", {}).get(key)
            if value is not None:
                items.append((variant, f"{name} ({'reduce-overhead' if variant.endswith('_ro') else 'default'})",
                              value, ""))
    return _bars_svg("Speedup of the fixed model over the unfixed one, both compiled (higher is better)", items, "x",
                     width=820)


def render_html(runs: dict | list[dict]) -> str:
    runs = [runs] if isinstance(runs, dict) else runs
    first = next((r for r in runs if not r.get("error")), runs[0] if runs else {})
    meta = (f"{html.escape(str(first.get('device_name', '?')))} · torch {html.escape(str(first.get('torch', '?')))} · "
            f"{first.get('iters', '?')} timed rounds after {first.get('warmup', '?')} warm-up rounds · "
            f"{html.escape(str(first.get('started', '')))}")
    body = (summary_svg(runs) if len(runs) > 1 else "") + "".join(pair_section(r) for r in runs)
    return ("<!doctype html><html><head><meta charset=utf-8><title>compilelint bench</title><style>"
            "body{font-family:system-ui,sans-serif;max-width:900px;margin:2em auto;color:#222}"
            "section{border-top:1px solid #ddd;margin-top:1.5em}.headline{font-size:1.15em}.err{color:#b00}"
            "pre{font-size:12px;overflow-x:auto}</style></head><body>"
            f"<h1>What the fixes are worth</h1><p>{meta}</p>"
            "<p>Each bar: the median time of each input set's call, summed over the input sets, on fresh models "
            "built by the pair's factories. Compiled columns count Dynamo's graphs, graph breaks and "
            "recompiles over the whole run.</p>"
            f"{body}</body></html>\n")


# -- entry point -----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m compilelint.runtime_probe.bench")
    ap.add_argument("unfixed")
    ap.add_argument("--compare", required=True, dest="fixed")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--tol", type=float, default=None)
    ap.add_argument("--variants", default="")
    ap.add_argument("--backend", default="inductor", help="torch.compile backend (tests use eager)")
    ap.add_argument("--json", dest="json_path")
    ap.add_argument("--child", action="store_true", help="measure in this process (the parent uses this)")
    ns = ap.parse_args(argv)
    variants = [v for v in ns.variants.split(",") if v] or None
    if ns.child:
        tol = ns.tol if ns.tol is not None else (1e-3 if ns.device.startswith("cuda") else 1e-4)
        data = child_main(ns.unfixed, ns.fixed, ns.device, ns.iters, ns.warmup, ns.scale, variants, tol, ns.backend,
                          ns.json_path)
    else:
        data = run_bench(ns.unfixed, ns.fixed, device=ns.device, iters=ns.iters, warmup=ns.warmup, scale=ns.scale,
                         variants=variants, tol=ns.tol, backend=ns.backend)
    if ns.json_path:
        Path(ns.json_path).write_text(json.dumps(data, indent=2))
    sys.stdout.write(render_table(data))
    return 1 if data.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
