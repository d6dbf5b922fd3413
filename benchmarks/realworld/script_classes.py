"""The oracle's TorchScript check: every library class of a model scripted on its own, in its own process.

    python -m benchmarks.realworld.script_classes --target FILE.py:FACTORY --scope DIR [--scope DIR] --result OUT.json

Builds the model once, then for each distinct class of its submodules defined in the scope, forks a child that
runs `torch.jit.script` on the first instance of that class. After an error the child scripts it again with the
failing method stubbed (`@torch.jit.unused`: compilelint.runtime_probe.isolate.isolate_script_bodies), so the
errors after the first show too. One class's failure, hang or crash never hides another's. Writes
{"classes": [{"class", "file", "ok", "errors": [{"file", "line", "error", "function"}], "stubbed", "status"}]}:
`stubbed` spans are methods whose lines after their first error TorchScript never checked; `span` is the
class's source, `root` marks the model's own class.

A class that scripts is then called, scripted, with what its first instance received in an eager run of input set
0 (a forward pre-hook): TorchScript types an unannotated `x=None` as a Tensor and a call leaving it out fails only
then, in the interpreter. Such a failure is `call_error`: torch's message, the innermost library line of its
TorchScript traceback, and the signature spans of the functions on that traceback (the run-time failure of a
scripted module usually comes from how its signature was typed).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import signal
import sys
import tempfile
import time

PER_CLASS_TIMEOUT_S = 120.0


def _build(target: str):  # noqa: ANN202
    import importlib.util

    path, _, factory = target.rpartition(":")
    spec = importlib.util.spec_from_file_location("_realworld_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, factory)()


def _signature_span(path: str, line: int) -> list | None:
    """[path, first, last] of the signature (decorators to the line before its body) of the innermost function
    of `path` holding `line`."""
    import ast

    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    holding = [f for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
               and f.lineno <= line <= (f.end_lineno or f.lineno)]
    if not holding:
        return None
    fn = max(holding, key=lambda f: f.lineno)
    first = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
    return [path, first, max(first, fn.body[0].lineno - 1)]


def _call_scripted(instance, call, is_user_file) -> dict | None:  # noqa: ANN001
    """Call the scripted instance with the (args, kwargs) its eager self received; None when that works."""
    import warnings

    import torch

    from compilelint.runtime_probe.observe import _TS_LOCATION

    args, kwargs = call
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(instance)
        try:
            with torch.no_grad():
                scripted(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - torch's verdict
            text = str(err)
            frames = [(f, int(n)) for f, n in _TS_LOCATION.findall(text) if is_user_file(f)]
            file, line = frames[-1] if frames else (None, None)
            first = next((ln for ln in reversed(text.splitlines()) if ln.strip() and not ln.startswith(" ")), "")
            spans = [_signature_span(f, n) for f, n in frames]
            forward = getattr(type(instance).forward, "__code__", None)
            if forward is not None and is_user_file(forward.co_filename):
                spans.append(_signature_span(forward.co_filename, forward.co_firstlineno))
            named = first if first.startswith(type(err).__name__) else f"{type(err).__name__}: {first}"
            return {"file": file, "line": line, "error": named[:500],
                    "signatures": [sp for i, sp in enumerate(spans) if sp and sp not in spans[:i]]}
    return None


def _script_one(instance, is_user_file, call=None) -> dict:  # noqa: ANN001
    from compilelint.runtime_probe import isolate, observe

    first = observe.run_script(instance)
    if first.ok:
        failed = _call_scripted(instance, call, is_user_file) if call is not None else None
        return {"ok": True, "errors": [], "stubbed": [], **({"call_error": failed} if failed else {})}
    errors = [{"file": first.filename, "line": first.lineno, "error": first.error, "function": None}]
    stubbed: list[list] = []
    if first.filename and is_user_file(first.filename):
        more = isolate.isolate_script_bodies(instance, (first.filename, first.lineno), {}, is_user_file,
                                             max_rounds=8, budget_s=60.0)
        errors += [{"file": e["file"], "line": e["line"], "error": e["error"], "function": e["function"]}
                   for e in more["errors"]]
        stubbed = more["stubbed"]  # [file, first line, last line] of each method stubbed after its error
        if not more["clean_after"]:
            # the stub-and-retry stopped short (an error outside a method, a stub that fails itself, the
            # round limit): nothing after it in the class was checked
            stubbed = stubbed + [_class_span(type(instance))]
    else:
        stubbed = [_class_span(type(instance))]
    return {"ok": False, "errors": errors, "stubbed": stubbed}


def _first_calls(model, built, instances: list) -> dict[int, tuple]:  # noqa: ANN001
    """{id(instance): (args, kwargs)} of each instance's first call in an eager run of input set 0."""
    import torch

    sets = built.get("inputs") if isinstance(built, dict) else (built[1] if len(built) > 1 else None)
    if not sets:
        return {}
    seen: dict[int, tuple] = {}
    hooks = []
    for m in instances:
        def hook(module, args, kwargs, key=id(m)):  # noqa: ANN001, ANN202
            seen.setdefault(key, (args, dict(kwargs)))
        hooks.append(m.register_forward_pre_hook(hook, with_kwargs=True))
    try:
        with torch.no_grad():
            model(*sets[0])
    except Exception:  # noqa: BLE001, S110 - the eager stage records its own failure; no calls to replay then
        pass
    finally:
        for h in hooks:
            h.remove()
    return seen


def _class_span(cls: type) -> list:
    try:
        lines, start = inspect.getsourcelines(cls)
        return [inspect.getsourcefile(cls), start, start + len(lines) - 1]
    except (OSError, TypeError):
        return [None, 0, 0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks.realworld.script_classes")
    parser.add_argument("--target", required=True)
    parser.add_argument("--scope", action="append", default=[])
    parser.add_argument("--result", required=True)
    ns = parser.parse_args(argv)

    import torch

    from compilelint.runtime_probe.scope import FileScope

    torch.set_num_threads(1)  # no OpenMP pool before the forks below
    in_scope = FileScope(ns.scope)
    built = _build(ns.target)
    model = built["model"] if isinstance(built, dict) else built[0]
    classes: list[tuple[type, object]] = []
    for m in model.modules():
        try:
            src = inspect.getsourcefile(type(m)) or ""
        except (TypeError, OSError):
            src = ""
        if src and in_scope(src) and all(type(m) is not c for c, _ in classes):
            classes.append((type(m), m))
    calls = _first_calls(model, built, [m for _, m in classes])
    out: dict = {"classes": []}
    for cls, instance in classes:
        record = {"class": f"{cls.__module__}.{cls.__qualname__}", "file": inspect.getsourcefile(cls),
                  "span": _class_span(cls), "root": instance is model}
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the class's own process
            code = 0
            try:
                result = _script_one(instance, in_scope, calls.get(id(instance)))
                with open(path, "w", encoding="utf-8") as fh:
                    json.dump(result, fh)
            except BaseException:  # noqa: BLE001
                code = 3
            finally:
                os._exit(code)
        status = "ok"
        while True:
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            if done:
                if os.WIFSIGNALED(wait_status):
                    status = f"crashed (signal {os.WTERMSIG(wait_status)})"
                elif os.WEXITSTATUS(wait_status) != 0:
                    status = f"failed (exit {os.WEXITSTATUS(wait_status)})"
                break
            if time.monotonic() - started > PER_CLASS_TIMEOUT_S:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                status = f"timeout after {PER_CLASS_TIMEOUT_S:.0f}s"
                break
            time.sleep(0.02)
        try:
            with open(path, encoding="utf-8") as fh:
                record.update(json.load(fh))
        except (OSError, ValueError):
            record.update(ok=None, errors=[])
        finally:
            os.unlink(path)
        record["status"] = status
        record["seconds"] = round(time.monotonic() - started, 2)
        out["classes"].append(record)
        with open(ns.result, "w", encoding="utf-8") as fh:
            json.dump(out, fh)
    with open(ns.result, "w", encoding="utf-8") as fh:
        json.dump(out, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
