"""Isolation checks (child side): reach the lines a whole-module check never got to.

TorchScript stops at its first error, Dynamo runs a frame eagerly after a graph break inside a loop, and a
trace that diverged with TracerWarnings elsewhere cannot be pinned on one line. After the ordinary checks,
the child re-checks such lines one at a time, always with real torch and always at the real file and line:

  dynamo       every statement run after the break in a frame Dynamo skipped whole is compiled alone:
               a function whose body is that statement (a compound statement's header only, `if test:
               pass`), placed at the statement's own line of the real file, called with the locals the
               statement saw in an eager run (one call per input set). Graph-break and recompile records
               at that line are the evidence; a statement that compiles with neither is clean.
  torchscript  the model is scripted again with the method that failed replaced by a `@torch.jit.unused`
               stub (a failing `forward`: stubbed, its class's other methods that ran exported), until
               it scripts or an error repeats; and the header of every function that ran (methods and
               module-level functions, no dunders, no decorators) is scripted with a body of `raise`, so
               a signature error (an unannotated default) shows even when an earlier error in the body
               stopped the module's script.
  trace        an eager re-run counts how often each user line runs per input set (a loop's trip count is
               its first body line's count) and which plain Python attributes of the module changed
               during the calls; the traced graph's nodes give the lines it recorded ops for. match.py
               turns these into a per-line verdict.

The source of an isolated function lives in linecache under `<file>#compilelint` (TorchScript reads
source through inspect); the error locations are mapped back to `<file>`.
"""

from __future__ import annotations

import ast
import copy
import linecache
import os
import sys
import textwrap
import time
import warnings
from typing import Any, Callable

SUFFIX = "#compilelint"
_SIMPLE = (int, float, bool, str, type(None))
_NAME = "__compilelint_isolated"


def _tree(path: str) -> tuple[ast.Module, list[str]] | None:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        return ast.parse(text), text.splitlines()
    except (OSError, SyntaxError, ValueError):
        return None


def _functions(tree: ast.AST) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _innermost(tree: ast.AST, line: int) -> ast.FunctionDef | None:
    spans = [f for f in _functions(tree) if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max(spans, key=lambda f: f.lineno) if spans else None


def _statements(fn: ast.FunctionDef) -> list[ast.stmt]:
    """Statements of `fn`'s body at any depth, outside nested functions and classes."""
    out: list[ast.stmt] = []

    def walk(body: list[ast.stmt]) -> None:
        for s in body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            out.append(s)
            for field in ("body", "orelse", "finalbody"):
                walk(getattr(s, field, None) or [])
            for h in getattr(s, "handlers", None) or []:
                walk(h.body)
    walk(fn.body)
    return out


def _segment(lines: list[str], node: ast.AST) -> str:
    """The source of `node`, its first line from its column on (continuation lines as written)."""
    first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
    if first == last:
        return lines[first][node.col_offset:node.end_col_offset]
    chunk = [lines[first][node.col_offset:]] + lines[first + 1:last] + [lines[last][:node.end_col_offset]]
    return "\n".join(chunk)


def snippet(lines: list[str], s: ast.stmt) -> str | None:
    """The statement as a body of its own (dedented), a compound statement by its header; None when it
    cannot stand alone (break/continue, imports, with, yield...)."""
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, ast.NamedExpr)) for n in ast.walk(s)
           if not isinstance(s, (ast.If, ast.While, ast.For))):
        return None
    if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return)):
        text = _segment(lines, s)
        return textwrap.dedent(text) if "\n" in text else text
    if isinstance(s, (ast.If, ast.While)):
        return f"if ({_segment(lines, s.test)}):\n    pass"
    if isinstance(s, ast.For):
        return f"for {_segment(lines, s.target)} in ({_segment(lines, s.iter)}):\n    pass"
    return None


def _loaded_names(s: ast.stmt) -> list[str]:
    nodes = [s.test] if isinstance(s, (ast.If, ast.While)) else [s.iter] if isinstance(s, ast.For) else [s]
    names: list[str] = []
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in names:
                names.append(n.id)
    if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and s.target.id not in names:
        names.append(s.target.id)
    return names


def _freeze(value: Any) -> Any:
    """A local as it was at the line: containers copied one level down (a list appended to later keeps its
    length at the line); tensors by reference (no copy of activations: an in-place write later changes
    values, never what a statement alone compiles to, apart from a data-dependent branch's direction)."""
    if isinstance(value, (list, dict, set)):
        return copy.copy(value)
    return value


class _Recorder:
    """sys.settrace for an eager re-run: per-line hit counts in user files (for the current input set) and,
    for the wanted (file, line)s, the frame's locals the first time the line is about to run."""

    def __init__(self, is_user_file: Callable[[str], bool], wanted: dict[str, set[int]]) -> None:
        self.is_user_file = is_user_file
        self.wanted = wanted
        self.hits: dict[str, dict[int, int]] = {}
        self.locals: dict[tuple[str, int], dict] = {}

    def _global(self, frame, event, arg):  # noqa: ANN001, ANN202
        filename = frame.f_code.co_filename
        if not self.is_user_file(filename):
            return None
        counts = self.hits.setdefault(filename, {})
        wanted = self.wanted.get(filename, ())

        def local(frame, event, arg):  # noqa: ANN001, ANN202
            if event == "line":
                line = frame.f_lineno
                counts[line] = counts.get(line, 0) + 1
                if line in wanted and (filename, line) not in self.locals:
                    self.locals[(filename, line)] = {k: _freeze(v) for k, v in frame.f_locals.items()}
            return local
        return local

    def __enter__(self) -> "_Recorder":
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)


def simple_attrs(model: Any) -> dict[str, Any]:
    """The plain (int/float/bool/str/None) attributes of the model and its submodules, by dotted name."""
    return _simple_attrs(model)


def changed_attrs(snapshots: list[dict[str, Any]]) -> dict[str, list]:
    """{name: [value at each snapshot]} for the attributes whose value changed between snapshots."""
    names = dict.fromkeys(n for snap in snapshots for n in snap)
    history = {n: [snap.get(n) for snap in snapshots] for n in names}
    return {n: vs for n, vs in history.items() if len(set(map(repr, vs))) > 1}


def _simple_attrs(model: Any) -> dict[str, Any]:
    import torch

    if not isinstance(model, torch.nn.Module):
        return {}
    out = {}
    for prefix, mod in model.named_modules():
        for k, v in vars(mod).items():
            if not k.startswith("_") and isinstance(v, _SIMPLE):
                out[f"{prefix + '.' if prefix else ''}{k}"] = v
    return out


def eager_rerun(model: Any, sets: list[tuple], is_user_file: Callable[[str], bool],
                wanted: dict[str, set[int]]) -> tuple[list[dict], list[dict[tuple[str, int], dict]], dict]:
    """Run the model eagerly once more on each input set: per-set line hit counts, per-set locals at the
    wanted lines, and the plain attributes that changed during the calls ({name: [value before each call,
    value after the last]})."""
    import torch

    hits, captured = [], []
    snapshots = [_simple_attrs(model)]
    with torch.no_grad():
        for args in sets:
            rec = _Recorder(is_user_file, wanted)
            try:
                with rec:
                    model(*args)
            except Exception:  # noqa: BLE001 - the eager stage already ran these; a stateful model may differ
                pass
            hits.append({f: {str(k): n for k, n in c.items()} for f, c in rec.hits.items()})
            captured.append(rec.locals)
            snapshots.append(_simple_attrs(model))
    return hits, captured, changed_attrs(snapshots)


def _hinted(hints: dict[str, list[int]], path: str) -> set[int] | None:
    lines = hints.get(os.path.realpath(path))
    return None if lines is None else set(lines)


def dynamo_targets(breaks: list[dict], coverage: dict[str, set[int]],
                   hints: dict[str, list[int]] | None = None) -> dict[str, dict[int, tuple[str, list[str], int]]]:
    """{file: {line: (snippet, names it loads, the masking break's line)}} for the statements of a frame
    Dynamo skipped whole (a break in a loop) that ran in eager. With `hints` for the file (the lines of its
    static findings), only the statements on those lines, anywhere in the frame (a statement before the
    break can still recompile: a skipped frame has no guards); without, every statement after the break."""
    out: dict[str, dict[int, tuple[str, list[str], int]]] = {}
    for b in breaks:
        if not b.get("frame_skipped"):
            continue
        parsed = _tree(b["file"])
        if parsed is None:
            continue
        tree, lines = parsed
        fn = _innermost(tree, b["line"])
        if fn is None:
            continue
        ran = coverage.get(b["file"], set())
        wanted = _hinted(hints or {}, b["file"])
        for s in _statements(fn):
            if s.lineno == b["line"] or s.lineno < 2 or s.lineno not in ran:
                continue
            if wanted is None and s.lineno < b["line"]:
                continue
            if wanted is not None and not wanted & set(range(s.lineno, (s.end_lineno or s.lineno) + 1)):
                continue
            text = snippet(lines, s)
            if text is not None:
                known = out.setdefault(b["file"], {})
                if s.lineno not in known:
                    known[s.lineno] = (text, _loaded_names(s), b["line"])
    return out


def _define(path: str, line: int, header: str, body: str, globals_: dict) -> Callable:
    """Define a function whose body's first line is `line` of `path` (the header on the line before), in a
    copy of the module's globals; its code object carries the real path, so Dynamo reports `path:line`."""
    src_lines = [""] * (line - 2) + [header] + textwrap.indent(body, "    ").splitlines()
    source = "\n".join(src_lines) + "\n"
    namespace: dict = {}
    g = dict(globals_)
    g.setdefault("__name__", "_compilelint_isolated")
    exec(compile(source, path, "exec"), g, namespace)  # noqa: S102 - the user's own statement, at its own line
    return namespace[_NAME]


def isolate_dynamo(targets: dict[str, dict[int, tuple[str, list[str], int]]], captured: list[dict],
                   globals_for: Callable[[str], dict], run_dynamo: Callable, backend: str,
                   dynamic: bool | None, budget_s: float = 60.0) -> dict:
    """Compile each target statement alone with the locals it saw; breaks/recompiles at its line."""
    import torch._dynamo

    breaks: list[dict] = []
    recompiles: list[dict] = []
    clean: list[list] = []
    skipped: list[dict] = []
    started = time.perf_counter()
    for path, lines in targets.items():
        for line, (text, names, masked_by) in sorted(lines.items()):
            if time.perf_counter() - started > budget_s:
                skipped.append({"file": path, "line": line, "why": f"the isolation time budget ({budget_s:.0f} s) "
                                                                   "was spent on earlier lines"})
                continue
            sets = [c.get((path, line)) for c in captured]
            sets = [s for s in sets if s is not None]
            params = [n for n in names if sets and all(n in s for s in sets)]
            if not sets:
                skipped.append({"file": path, "line": line, "why": "no eager locals captured at this line"})
                continue
            try:
                fn = _define(path, line, f"def {_NAME}({', '.join(params)}):", text, globals_for(path))
            except SyntaxError as err:
                skipped.append({"file": path, "line": line, "why": f"statement cannot stand alone: {err.msg}"})
                continue
            calls = [tuple(s[n] for n in params) for s in sets]
            with torch._dynamo.config.patch(allow_empty_graphs=True):
                report = run_dynamo(fn, calls, backend=backend, dynamic=dynamic)
            here = [b for b in report.breaks if os.path.realpath(b.filename) == os.path.realpath(path)
                    and b.lineno == line]
            recs = [e for e in report.recompile_events()
                    if any(os.path.realpath(f) == os.path.realpath(path) and n == line for f, n in e.locations)
                    or (os.path.realpath(e.filename) == os.path.realpath(path) and e.lineno == line - 1)]
            for b in here if line > masked_by else ():  # before the break: traced in context without one
                breaks.append({"gb_ids": b.gb_ids, "file": path, "line": line, "masked_by": masked_by,
                               "message": b.message[:600]})
            for e in recs:
                recompiles.append({"file": path, "line": line, "masked_by": masked_by, "reasons": e.reasons[:4],
                                   "calls": len(calls)})
            if not here and not recs and report.error:
                # the statement alone failed to run (a name it needs was not a local): no verdict
                skipped.append({"file": path, "line": line, "why": f"the isolated call failed: {report.error[:200]}"})
                continue
            if not recs and (line < masked_by or not here):
                clean.append([path, line, masked_by, len(calls),
                              (report.error or "")[:200]])
    return {"breaks": breaks, "recompiles": recompiles, "clean": clean, "skipped": skipped, "dynamic": dynamic}


def _header(lines: list[str], fn: ast.FunctionDef) -> str:
    first, last = fn.lineno - 1, fn.body[0].lineno - 1
    head = "\n".join(lines[first:last]).strip()
    # the header ends at the ':' that closes the signature; a docstring or body on the same line is cut
    end = fn.body[0].col_offset if fn.body[0].lineno == fn.lineno else None
    if end is not None:
        head = lines[first][fn.col_offset:end].rstrip()
    return textwrap.dedent(head)


def isolate_script_headers(files: list[str], coverage: dict[str, set[int]], skip: set[tuple[str, int]],
                           hints: dict[str, list[int]] | None = None) -> dict:
    """Script the header of every function that ran (body: `raise`), so signature errors show; with `hints`
    for a file, only the functions whose header holds a hinted line."""
    import torch

    from compilelint.runtime_probe.observe import _TS_LOCATION

    errors: list[dict] = []
    clean: list[list] = []
    for path in files:
        parsed = _tree(path)
        if parsed is None:
            continue
        tree, lines = parsed
        ran = coverage.get(path, set())
        wanted = _hinted(hints or {}, path)
        for fn in _functions(tree):
            if wanted is not None and not wanted & set(range(fn.lineno, fn.body[0].lineno)):
                continue
            if fn.decorator_list or (fn.name.startswith("__") and fn.name.endswith("__")) or fn.lineno < 2:
                continue
            if fn.lineno not in ran or (path, fn.lineno) in skip:
                continue
            head = _header(lines, fn)
            if not head.endswith(":"):
                continue
            head = head.replace(f"def {fn.name}(", f"def {_NAME}(", 1).replace(f"async def {_NAME}", f"def {_NAME}")
            src_lines = [""] * (fn.lineno - 1) + head.splitlines() + ['    raise RuntimeError("compilelint")']
            source = "\n".join(src_lines) + "\n"
            fake = path + SUFFIX
            linecache.cache[fake] = (len(source), None, source.splitlines(True), fake)
            g = {"__name__": "_compilelint_isolated", "torch": torch}
            try:
                g.update(_module_globals(path))
                namespace: dict = {}
                exec(compile(source, fake, "exec"), g, namespace)  # noqa: S102
                stub = namespace[_NAME]
            except Exception:  # noqa: BLE001 - the header needs something the module-level namespace lacks
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    torch.jit.script(stub)
                    clean.append([path, fn.lineno])
                except Exception as err:  # noqa: BLE001
                    text = str(err)
                    where = _TS_LOCATION.findall(text)
                    line = int(where[-1][1]) if where else None
                    first = next((ln for ln in text.splitlines() if ln.strip()), "")
                    errors.append({"file": path, "line": line, "function": fn.name,
                                   "error": f"{type(err).__name__}: {first}"[:500]})
    return {"errors": errors, "clean": clean}


def _module_globals(path: str) -> dict:
    real = os.path.realpath(path)
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if f and os.path.realpath(f) == real:
            return {k: v for k, v in vars(mod).items() if not k.startswith("__")}
    return {}


def globals_for(path: str) -> dict:
    return _module_globals(path)


def traced_lines(traced: Any, is_user_file: Callable[[str], bool]) -> dict[str, dict[str, int]]:
    """{file: {line: nodes}}: how many nodes of the traced (inlined) graph the tracer recorded at each user line
    (a node's innermost user frame)."""
    import re

    frame = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): ")
    out: dict[str, dict[str, int]] = {}
    try:
        nodes = list(traced.inlined_graph.nodes())
    except Exception:  # noqa: BLE001
        return out
    for node in nodes:
        for row in node.sourceRange().splitlines():
            m = frame.match(row.strip())
            if m and is_user_file(m.group("file")):
                counts = out.setdefault(m.group("file"), {})
                counts[m.group("line")] = counts.get(m.group("line"), 0) + 1
                break
    return out


def _copy_function(fn: Callable) -> Callable:
    """A new function object on the same code (TorchScript's modifiers are set as attributes on the
    function: the user's class keeps its own functions untouched)."""
    import types

    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    g.__kwdefaults__ = fn.__kwdefaults__
    g.__annotations__ = dict(getattr(fn, "__annotations__", {}))
    g.__qualname__ = fn.__qualname__
    g.__module__ = fn.__module__
    g.__doc__ = fn.__doc__
    return g


def _stub(fn: Callable) -> Callable:
    """`fn` as a `@torch.jit.unused` stub. TorchScript types a call to an unused method from the function's
    `__annotations__` with no resolution callback (torch/jit/annotations.py try_real_annotations, 2.13), so
    the strings `from __future__ import annotations` leaves there ('torch.Tensor') fail at every caller with
    "Unknown type annotation", an error the user's code never has: evaluate them in the function's globals
    first (one that does not evaluate, a name imported under TYPE_CHECKING, stays a string)."""
    import torch

    g = _copy_function(fn)
    for name, ann in g.__annotations__.items():
        if isinstance(ann, str):
            try:
                g.__annotations__[name] = eval(ann, fn.__globals__)  # noqa: S307 - the user's own annotation
            except Exception:  # noqa: BLE001, S110 - left as written: TorchScript then says what it says
                pass
    return torch.jit.unused(g)


def _code_span(fn: Callable) -> tuple[str, int, int]:
    code = fn.__code__
    lines = [n for _, _, n in code.co_lines() if n is not None] or [code.co_firstlineno]
    return code.co_filename, code.co_firstlineno, max(lines)


def _method_at(classes: list[type], path: str, line: int) -> tuple[type, str] | None:
    real = os.path.realpath(path)
    for cls in classes:
        for name, value in vars(cls).items():
            if not callable(value) or not hasattr(value, "__code__"):
                continue
            file, first, last = _code_span(value)
            if os.path.realpath(file) == real and first <= line <= last:
                return cls, name
    return None


def isolate_script_bodies(model: Any, first: tuple[str | None, int | None], coverage: dict[str, set[int]],
                          is_user_file: Callable[[str], bool], max_rounds: int = 8, budget_s: float = 30.0) -> dict:
    """After torch.jit.script(model) failed in a method of a user class, script the model again with that
    method replaced by a `@torch.jit.unused` stub (same signature, body `raise`) on a subclass of its own
    class (the model's modules get the subclass for the call, then their class back); a failing `forward`
    is stubbed and every other method of its class that ran in eager is `@torch.jit.export`ed instead, so
    it is still compiled. Repeat on each new error (at most `max_rounds`): every error is torch's, at its
    own line. Lines after the first error of a method stay unchecked (that method is a stub from then on);
    an error outside a user class's method (a free function) ends the search."""
    import inspect

    import torch

    from compilelint.runtime_probe.observe import _TS_LOCATION

    out: dict = {"errors": [], "stubbed": [], "clean_after": False, "rounds": 0}
    if not isinstance(model, torch.nn.Module) or not first[0] or not first[1]:
        return out
    instances = list(model.modules())
    classes: list[type] = []
    for m in instances:
        try:
            src = inspect.getsourcefile(type(m)) or ""
        except (TypeError, OSError):
            src = ""
        if src and is_user_file(src) and type(m) not in classes:
            classes.append(type(m))
    stubbed: dict[type, set[str]] = {}
    seen = {(os.path.realpath(first[0]), first[1])}
    where = (first[0], first[1])
    started = time.perf_counter()
    while out["rounds"] < max_rounds and time.perf_counter() - started < budget_s:
        owner = _method_at(classes, *where)
        if owner is None or owner[1] in stubbed.get(owner[0], set()):
            break  # a free function, or the stub itself fails (an error in the signature)
        cls, name = owner
        stubbed.setdefault(cls, set()).add(name)
        out["stubbed"].append(list(_code_span(vars(cls)[name])))
        subclasses: dict[type, type] = {}
        for c, names in stubbed.items():
            body: dict = {"__module__": c.__module__}
            for n in names:
                body[n] = _stub(vars(c)[n])
            if "forward" in names:
                for n, value in vars(c).items():
                    if n in names or n.startswith("__") or not inspect.isfunction(value) or \
                            hasattr(value, "_torchscript_modifier"):
                        continue
                    file, first_line, _ = _code_span(value)
                    if first_line in coverage.get(file, set()):
                        body[n] = torch.jit.export(_copy_function(value))
            subclasses[c] = type(c.__name__, (c,), body)
        swapped = [(m, type(m)) for m in instances if type(m) in subclasses]
        out["rounds"] += 1
        try:
            for m, c in swapped:
                m.__class__ = subclasses[c]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.jit.script(model)
            out["clean_after"] = True
            break
        except Exception as err:  # noqa: BLE001 - torch's verdict
            text = str(err)
            found = _TS_LOCATION.findall(text)
            if not found:
                break
            file, line = found[-1][0], int(found[-1][1])
            first_text = next((ln for ln in text.splitlines() if ln.strip()), "")
            if (os.path.realpath(file), line) in seen or not is_user_file(file):
                break
            seen.add((os.path.realpath(file), line))
            out["errors"].append({"file": file, "line": line, "function": f"{cls.__name__}.{name}",
                                  "error": f"{type(err).__name__}: {first_text}"[:500],
                                  "stubs": sorted(f"{c.__name__}.{n}" for c, ns in stubbed.items() for n in ns)})
            where = (file, line)
        finally:
            for m, c in swapped:
                m.__class__ = c
    return out


def _script_type(value: Any) -> str | None:
    """The TorchScript annotation for a local's eager value; None when it has no plain spelling here."""
    import torch

    if isinstance(value, torch.Tensor):
        return "torch.Tensor"
    for py, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
        if type(value) is py:
            return name
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, torch.Tensor) for v in value):
        return "List[torch.Tensor]" if isinstance(value, list) else None
    return None


def isolate_script_statements(hints: dict[str, list[int]], captured: list[dict], first_error: tuple[str | None, int | None],
                              is_user_file: Callable[[str], bool]) -> dict:
    """Script each hinted statement alone, as the body of a function whose parameters are its locals typed from
    the eager run (globals: the module's), at its own line: TorchScript stops at its first error in a method,
    so a later finding in the same method gets its own torch error this way. Only an error at the statement's
    line counts; a statement that scripts alone proves nothing (its locals' TorchScript types can differ from
    their eager values: `.item()` is `number`), so it never clears a finding."""
    from typing import List

    import torch

    from compilelint.runtime_probe.observe import _TS_LOCATION

    errors: list[dict] = []
    skipped: list[dict] = []
    first_file, first_line = first_error
    captured = [{(os.path.realpath(f), n): v for (f, n), v in c.items()} for c in captured]
    for path, wanted in hints.items():
        path = os.path.realpath(path)
        parsed = _tree(path) if is_user_file(path) else None
        if parsed is None:
            continue
        tree, lines = parsed
        for line in sorted(set(wanted)):
            if first_file and os.path.realpath(first_file) == os.path.realpath(path) and line == first_line:
                continue  # the whole-module check already has this line's error
            fn = _innermost(tree, line)
            stmt = next((s for s in _statements(fn) if s.lineno == line), None) if fn is not None else None
            text = snippet(lines, stmt) if stmt is not None else None
            seen = [c.get((path, line)) for c in captured]
            seen = [s for s in seen if s is not None]
            if text is None or not seen:
                continue
            params, untyped = [], []
            for name in _loaded_names(stmt):
                if name not in seen[0]:
                    continue  # a global or builtin: the module's namespace provides it
                typ = _script_type(seen[0][name])
                if typ:
                    params.append(f"{name}: {typ}")
                else:
                    untyped.append(name)
            if untyped:
                skipped.append({"file": path, "line": line, "why": f"locals without a plain TorchScript type: "
                                                                   f"{', '.join(untyped)}"})
                continue
            src_lines = [""] * (line - 2) + [f"def {_NAME}({', '.join(params)}):"] + \
                textwrap.indent(text, "    ").splitlines()
            source = "\n".join(src_lines) + "\n"
            fake = path + SUFFIX
            linecache.cache[fake] = (len(source), None, source.splitlines(True), fake)
            g = {"__name__": "_compilelint_isolated", "torch": torch, "List": List}
            g.update(_module_globals(path))
            try:
                namespace: dict = {}
                exec(compile(source, fake, "exec"), g, namespace)  # noqa: S102 - the user's statement, at its line
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.jit.script(namespace[_NAME])
            except SyntaxError as err:
                skipped.append({"file": path, "line": line, "why": f"statement cannot stand alone: {err.msg}"})
            except Exception as err:  # noqa: BLE001 - the error is the evidence
                where = _TS_LOCATION.findall(str(err))
                at = int(where[-1][1]) if where else None
                first = next((ln for ln in str(err).splitlines() if ln.strip()), "")
                if at == line:
                    errors.append({"file": path, "line": line, "error": f"{type(err).__name__}: {first}"[:500]})
                else:
                    skipped.append({"file": path, "line": line, "why": f"error elsewhere ({at}): {first[:160]}"})
    return {"errors": errors, "skipped": skipped}


def _apply_fixes(lines: list[str], fixes: list[list]) -> list[str]:
    """`lines` (a file's, no newlines) with one-line fixes [line, col, line, end_col, text] applied; fixes on one
    line go right to left so earlier columns stay valid; overlapping ones after the first are skipped."""
    out = list(lines)
    by_line: dict[int, list[list]] = {}
    for fx in fixes:
        by_line.setdefault(fx[0], []).append(fx)
    for line, items in by_line.items():
        text = out[line - 1]
        left = len(text) + 1
        for _, col, _, end, new in sorted(items, key=lambda f: -f[1]):
            if end > left:
                continue
            text = text[:col] + new + text[end:]
            left = col
        out[line - 1] = text
    return out


def isolate_script_fixed(model: Any, first: tuple[str | None, int | None], fixes: dict[str, list[list]],
                         is_user_file: Callable[[str], bool], max_rounds: int = 12, budget_s: float = 30.0) -> dict:
    """After torch.jit.script(model) failed at a line of a method that has compilelint fixes, script the model
    again with that method recompiled from its source with the fixes of every line that failed so far applied
    (on a subclass, as isolate_script_bodies does), and so on to the next error in the same method: each
    error is torch's, at its own line, in code that differs from the user's only by compilelint's fixes of the
    earlier lines. Stops at an error with no fix, outside the method, at a line seen before, or when it scripts."""
    import inspect

    import torch

    from compilelint.runtime_probe.observe import _TS_LOCATION

    out: dict = {"errors": [], "fixed_lines": [], "clean_after": False}
    if not isinstance(model, torch.nn.Module) or not first[0] or not first[1]:
        return out
    path = os.path.realpath(first[0])
    file_fixes = fixes.get(path) or []
    parsed = _tree(path)
    if not file_fixes or parsed is None:
        return out
    tree, lines = parsed
    instances = list(model.modules())
    classes = []
    for m in instances:
        try:
            src = inspect.getsourcefile(type(m)) or ""
        except (TypeError, OSError):
            src = ""
        if src and os.path.realpath(src) == path and type(m) not in classes:
            classes.append(type(m))
    owner = _method_at(classes, path, first[1])
    if owner is None:
        return out
    cls, name = owner
    fn_node = next((f for f in _functions(tree) if f.name == name and f.lineno <= first[1] <= (f.end_lineno or 0)),
                   None)
    if fn_node is None or "super(" in _segment(lines, fn_node):
        return out  # zero-argument super() needs the class cell: the method cannot be redefined outside it
    start = min([d.lineno for d in fn_node.decorator_list] + [fn_node.lineno])
    end = fn_node.end_lineno or fn_node.lineno
    g = dict(_module_globals(path))
    g.setdefault("__name__", "_compilelint_isolated")
    failed = [first[1]]
    began = time.perf_counter()
    while len(out["errors"]) < max_rounds and time.perf_counter() - began < budget_s:
        chosen = [fx for fx in file_fixes if fx[0] in failed]
        if not any(fx[0] == failed[-1] for fx in chosen):
            break  # the last error has no fix of ours: nothing to apply to get past it
        patched = _apply_fixes(lines, chosen)
        body = textwrap.dedent("\n".join(patched[start - 1:end]))
        source = "\n" * (start - 1) + body + "\n"
        fake = path + SUFFIX
        linecache.cache[fake] = (len(source), None, source.splitlines(True), fake)
        namespace: dict = {}
        try:
            exec(compile(source, fake, "exec"), g, namespace)  # noqa: S102 - the user's method with our fixes
        except SyntaxError:
            break
        sub = type(cls.__name__, (cls,), {"__module__": cls.__module__, name: namespace[name]})
        swapped = [(m, type(m)) for m in instances if type(m) is cls]
        try:
            for m, _ in swapped:
                m.__class__ = sub
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.jit.script(model)
            out["clean_after"] = True
            break
        except Exception as err:  # noqa: BLE001 - torch's verdict
            found = _TS_LOCATION.findall(str(err))
            if not found:
                break
            file, line = found[-1][0], int(found[-1][1])
            if file.endswith(SUFFIX):
                file = file[: -len(SUFFIX)]
            if os.path.realpath(file) != path or not start <= line <= end or line in failed:
                break
            first_text = next((ln for ln in str(err).splitlines() if ln.strip()), "")
            out["errors"].append({"file": path, "line": line, "fixed": sorted(set(failed)),
                                  "error": f"{type(err).__name__}: {first_text}"[:500]})
            failed.append(line)
        finally:
            for m, c in swapped:
                m.__class__ = c
    out["fixed_lines"] = sorted(set(failed[:-1] if not out["clean_after"] else failed))
    return out
