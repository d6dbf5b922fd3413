"""`--fix` on copies of real libraries, under torch: what scripted and compiled before still does.

    python benchmarks/fix_runtime.py kornia monai diffusers [--unsafe-fixes] [--fixed DIR] [--only NAME ...]
                                     [--affected-only] [-j 2]

Run it with the real-world benchmark's venv (benchmarks/realworld/README.md). For each package, fix_safety.py's
`check_package` makes the fixed copy (and its static checks: parameter lists, parse, ruff) unless `--fixed` names
a folder that already holds one (`fix_safety.py --keep DIR`). Then every model of the real-world registry
(benchmarks/realworld/registry.py) from that package is built twice, each time in a child process of its own
(the probe's runner): with the installed package, and with the fixed copy first on PYTHONPATH. Each child
  eager    seeds torch, builds the model with its factory and runs every input set, seeded again before each
  script   `torch.jit.script` of the model and of each class of its submodules defined in the package (the
           probe's observe.run_script, as the oracle's script_classes.py scripts them)
  compile  `torch.compile(backend="eager")` on the first `--calls` input sets (observe.run_dynamo): ok when the
           compiled calls raise nothing
and the two runs are compared: a class or model that scripted, or a model that compiled, with the installed
package must still do so with the fixed copy, and the eager outputs must be equal. `--affected-only` checks only
the models whose eager run in the oracle's record (events.jsonl `coverage`, imports included) executed a line of a
file the fix changed: a model that never imported such a file cannot script, compile or compute differently.
Prints one line per model and a summary per package; exits 1 on any regression.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from benchmarks.fix_safety import check_package  # noqa: E402
from benchmarks.realworld.registry import Entry, entries  # noqa: E402

TIMEOUT_S = 600.0
MEMORY_MB = 8192


def _tensors(value, out: list) -> list:  # noqa: ANN001
    """Every tensor in a model's output, in order (tuples, lists, dicts and output dataclasses walked)."""
    import torch

    if isinstance(value, torch.Tensor):
        out.append(value.detach().cpu())
    elif isinstance(value, dict):
        for v in value.values():
            _tensors(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensors(v, out)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            _tensors(getattr(value, name), out)
    return out


def child(argv: list[str]) -> int:
    """One model, one build of its package: `--target FILE:FACTORY --package PKG --outputs FILE --result FILE`."""
    parser = argparse.ArgumentParser(prog="benchmarks.fix_runtime child")
    parser.add_argument("--target", required=True)
    parser.add_argument("--package", required=True)
    parser.add_argument("--outputs", required=True)
    parser.add_argument("--calls", type=int, default=1)
    parser.add_argument("--result", required=True)
    ns = parser.parse_args(argv)
    result: dict = {"stage": "import"}

    def write() -> None:
        with open(ns.result, "w", encoding="utf-8") as fh:
            json.dump(result, fh)

    import importlib
    import inspect

    import torch

    from benchmarks.realworld.check_models import load
    from compilelint.runtime_probe import observe

    torch.set_num_threads(2)
    package = importlib.import_module(ns.package)
    home = os.path.dirname(os.path.realpath(package.__file__))
    result["package_dir"] = home

    def in_package(path: str) -> bool:
        return os.path.realpath(path).startswith(home + os.sep)

    path, _, factory = ns.target.rpartition(":")
    result["stage"] = "factory"
    write()
    torch.manual_seed(0)
    built = getattr(load(path), factory)()
    model, sets = built["model"], built["inputs"]
    sets = [tuple(s) if isinstance(s, (tuple, list)) else (s,) for s in sets]

    result["stage"] = "eager"
    write()
    outputs = []
    with torch.no_grad():
        for args in sets:
            torch.manual_seed(0)
            outputs.append(_tensors(model(*args), []))
    torch.save(outputs, ns.outputs)

    result["stage"] = "script"
    write()
    scripted = {}
    seen: set[type] = set()
    for m in model.modules():
        cls = type(m)
        try:
            src = inspect.getsourcefile(cls) or ""
        except (TypeError, OSError):
            src = ""
        if cls in seen or not (m is model or (src and in_package(src))):
            continue
        seen.add(cls)
        report = observe.run_script(m)
        scripted[f"{cls.__module__}.{cls.__qualname__}"] = {"ok": report.ok, "error": report.error[:300],
                                                           "root": m is model}
    result["script"] = scripted

    result["stage"] = "compile"
    write()
    with torch.no_grad():
        dyn = observe.run_dynamo(model, sets[:max(1, ns.calls)])
    result["compile"] = {"ok": not dyn.error, "error": (dyn.error or "")[:300], "breaks": len(dyn.breaks)}
    result["stage"] = "done"
    write()
    return 0


def _run(entry: Entry, fixed_dir: str | None, out_dir: str, calls: int) -> dict:
    """The child for one model, with the installed package (`fixed_dir` None) or with the fixed copy first."""
    from compilelint.runtime_probe.runner import run_in_child

    tag = "fixed" if fixed_dir else "installed"
    outputs = os.path.join(out_dir, f"{entry.name.replace(':', '.')}.{tag}.pt")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (fixed_dir, ROOT, env.get("PYTHONPATH")) if p)
    run = run_in_child("benchmarks.fix_runtime", ["--child", "--target", os.path.join(ROOT, entry.target),
                                                  "--package", entry.package, "--outputs", outputs,
                                                  "--calls", str(calls)],
                       timeout=TIMEOUT_S, memory_mb=MEMORY_MB, env=env, cwd=ROOT)
    payload = run.payload or {}
    payload.update(status=run.status, reason=run.reason, outputs=outputs)
    return payload


def changed_files(package: str, fixed_dir: str) -> set[str]:
    """Files of the package (relative to its parent folder: `kornia/filters/kernels.py`) the fixed copy changed."""
    import importlib.util

    spec = importlib.util.find_spec(package)  # finds the installed package without importing it
    installed = list(spec.submodule_search_locations)[0]
    out = set()
    for folder, _, names in os.walk(os.path.join(fixed_dir, package)):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, fixed_dir)
                original = os.path.join(installed, os.path.relpath(path, os.path.join(fixed_dir, package)))
                with open(path, "rb") as a, open(original, "rb") as b:
                    if a.read() != b.read():
                        out.add(rel)
    return out


def executed_files() -> dict[str, set[str]]:
    """Registry name -> the library files its recorded eager run executed a line of (imports included)."""
    out: dict[str, set[str]] = {}
    with open(os.path.join(ROOT, "benchmarks", "realworld", "events.jsonl"), encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record.get("record") == "model":
                out[record["model"]] = set(record.get("coverage", {}))
    return out


def _same_outputs(a: str, b: str) -> tuple[bool, str]:
    import torch

    try:
        left, right = torch.load(a), torch.load(b)
    except (OSError, RuntimeError) as err:
        return False, f"outputs not saved ({err})"
    if len(left) != len(right):
        return False, "another number of input sets"
    for i, (x, y) in enumerate(zip(left, right)):
        if len(x) != len(y):
            return False, f"input set {i}: {len(x)} tensors, then {len(y)}"
        for j, (s, t) in enumerate(zip(x, y)):
            if s.shape != t.shape or s.dtype != t.dtype or not torch.equal(s, t):
                diff = (s.double() - t.double()).abs().max().item() if s.shape == t.shape else float("nan")
                return False, f"input set {i}, tensor {j} differs (max {diff:.3g})"
    return True, ""


def compare(entry: Entry, before: dict, after: dict, fixed_dir: str) -> dict:
    """What the fixed copy lost: classes or the model that no longer script, a compile that now fails, other
    eager outputs."""
    row: dict = {"model": entry.name, "built": before.get("stage") == "done", "regressions": []}
    if before.get("stage") != "done":
        row["note"] = f"not built with the installed package ({before.get('status')}: {before.get('stage')})"
        return row
    if after.get("stage") != "done":
        row["regressions"].append(f"fixed copy stopped at {after.get('stage')} ({after.get('status')}: "
                                  f"{after.get('reason', '')[:200]})")
        return row
    if not after.get("package_dir", "").startswith(os.path.realpath(fixed_dir) + os.sep):
        row["regressions"].append(f"the fixed run imported {entry.package} from {after.get('package_dir')}")
        return row
    s_before, s_after = before.get("script", {}), after.get("script", {})
    row["script_ok"] = (sum(v["ok"] for v in s_before.values()), sum(v["ok"] for v in s_after.values()),
                        len(s_before))
    row["model_scripts"] = (any(v["ok"] and v["root"] for v in s_before.values()),
                            any(v["ok"] and v["root"] for v in s_after.values()))
    row["regressions"] += [f"{name} no longer scripts: {s_after.get(name, {}).get('error', 'not built')}"
                           for name, v in s_before.items() if v["ok"] and not s_after.get(name, {}).get("ok")]
    c_before, c_after = before["compile"]["ok"], after["compile"]["ok"]
    row["compile_ok"] = (c_before, c_after)
    if c_before and not c_after:
        row["regressions"].append(f"no longer compiles: {after['compile']['error']}")
    same, why = _same_outputs(before["outputs"], after["outputs"])
    row["eager_same"] = same
    if not same:
        row["regressions"].append(f"eager outputs changed: {why}")
    return row


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--fixed", help="a folder holding fixed copies already (fix_safety.py --keep DIR)")
    ap.add_argument("--only", nargs="*", default=[], help="registry names (file:factory) to check")
    ap.add_argument("--affected-only", action="store_true",
                    help="only the models whose recorded eager run executed a file the fix changed")
    ap.add_argument("--calls", type=int, default=1, help="compiled calls per model (input sets from the first)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every model's comparison here")
    args = ap.parse_args(argv)
    scratch = args.fixed or tempfile.mkdtemp(prefix="compilelint-fix-runtime-")
    out_dir = tempfile.mkdtemp(prefix="compilelint-fix-outputs-")
    failed = False
    rows: list[dict] = []
    for package in args.packages:
        if not args.fixed:
            r = check_package(package, args.unsafe_fixes, scratch)
            print(f"{package}: {r['changed']} files changed ({r['fixed']}); {len(r['signature_changes'])} parameter "
                  f"lists changed, {len(r['not_parsing'])} files not parsing")
            failed |= bool(r["signature_changes"] or r["not_parsing"] or r["new_ruff"])
        chosen = [e for e in entries() if e.package == package and (not args.only or e.name in args.only)]
        if args.affected_only:
            changed, executed = changed_files(package, scratch), executed_files()
            chosen = [e for e in chosen if executed.get(e.name, changed) & changed]

        def both(entry: Entry) -> dict:
            return compare(entry, _run(entry, None, out_dir, args.calls), _run(entry, scratch, out_dir, args.calls),
                           scratch)

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            mine = list(pool.map(both, chosen))
        for row in mine:
            if not row["built"]:
                print(f"  {row['model']}: {row['note']}")
                continue
            ok_b, ok_a, n = row["script_ok"]
            print(f"  {row['model']}: script {ok_b}/{n} -> {ok_a}/{n} classes, model scripts "
                  f"{row['model_scripts'][0]} -> {row['model_scripts'][1]}, compiles {row['compile_ok'][0]} -> "
                  f"{row['compile_ok'][1]}, eager {'same' if row['eager_same'] else 'CHANGED'}")
            for line in row["regressions"]:
                print(f"    REGRESSION {line}")
        built = [r for r in mine if r["built"]]
        print(f"{package}: {len(built)} of {len(mine)} models checked; classes scripting "
              f"{sum(r['script_ok'][0] for r in built)} -> {sum(r['script_ok'][1] for r in built)}, models scripting "
              f"{sum(r['model_scripts'][0] for r in built)} -> {sum(r['model_scripts'][1] for r in built)}, compiling "
              f"{sum(r['compile_ok'][0] for r in built)} -> {sum(r['compile_ok'][1] for r in built)}, eager outputs "
              f"changed in {sum(not r['eager_same'] for r in built)}; "
              f"{sum(bool(r['regressions']) for r in mine)} models with a regression")
        failed |= any(r["regressions"] for r in mine)
        rows += mine
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
