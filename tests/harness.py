"""Run a rule's examples through the linter and through real torch.

The linter part: a bad example must be flagged by its rule on exactly the lines marked `# <-`;
a good example must not be flagged by it. The torch part depends on the rule's family:
  torchscript / annotations: `torch.jit.script` must reject the bad example and accept the good one
      (check="script-call": the failure only shows when the scripted object is called on `inputs`;
      check="script-wrong": it scripts and runs, but returns something else than eager on some input set);
  trace: tracing the bad example must emit a TracerWarning or give outputs that differ from eager on
      the other input sets; the good one neither;
  graph-break: a real compile must log a graph break with the rule's GB id on a marked line (from
      torch's graph-break log records, not explain()); the good one has no break and no skipped frame;
  recompile: compiling with backend="eager" and calling every input set must recompile (bad) or not (good);
  export: torch.export.export(strict=False, the 2.13 default) on the first input set must fail with the error
      attributed to a marked line (the last `File "...", line N` of the example in the message, else the
      innermost frame of the example in the traceback); the good one must export.
  custom-op: torch.compile(backend="eager", fullgraph=True) over the input sets and torch.export.export
      (strict=False) on the first must each raise, for each of those the rule targets, with one of the rule's
      `torch_error` texts and a marked line among the example's lines the error names (its message, and the
      tracebacks of the error and of what it was raised from; the text alone for a rule whose errors name the
      op's call rather than the marked line: `torch_names_line = False`); check="custom-op-wrong" (a silently wrong
      result): both run, and the compiled (backend="aot_eager", AOTAutograd's functionalised graph, what
      inductor compiles) or exported program returns something else than eager on some input set.
      check="custom-op-break": torch.compile (backend "eager", no fullgraph) logs a graph break with the
      example's gb_id on a marked line (a break inside code reached through an op, not a rule's own GB claim). The good twin
      compiles with fullgraph=True and exports, and both return what eager returns. Every run gets fresh copies
      of the inputs (a custom op may write into them).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import sys
from pathlib import Path

from compilelint.config import Config
from compilelint.engine import lint
from compilelint.rules.base import Example, Rule
from compilelint.rules.registry import all_rules

_counter = itertools.count()


def write_example(tmp_dir: Path, rule: type[Rule], kind: str, index: int, example: Example) -> Path:
    path = tmp_dir / f"ex_{rule.code.lower()}_{kind}{index}_{next(_counter)}.py"
    path.write_text(example.code)
    return path


def lint_example(path: Path, code: str) -> list[int]:
    """Lines on which rule `code` fires in the file at `path`."""
    config = Config(select=[code], root=str(path.parent))
    rule = all_rules()[code]
    if rule.max_torch:  # a rule about older releases is off for the default torch-version
        config.torch_version = rule.max_torch
    result = lint([str(path)], config, jobs=1)
    return sorted({f.line for f in result.findings if f.code == code})


def load_entry(path: Path, example: Example):  # noqa: ANN201
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    import torch

    entry = getattr(module, example.entry)
    obj = entry() if isinstance(entry, type) else entry
    namespace = {"torch": torch, **vars(module)}
    inputs = eval(example.inputs, namespace)  # noqa: S307 - the rule's own example inputs
    return obj, inputs


def deprecation_verdict(path: Path, example: Example) -> tuple[bool, str]:
    """check="deprecation": importing the example and calling `entry` on the first input set emits a
    DeprecationWarning from torch.jit (torch.jit.script / torch.jit.trace are deprecated in 2.13)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        obj, inputs = load_entry(path, example)
        obj(*inputs[0])
    hits = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning) and "torch.jit" in str(w.message)]
    return bool(hits), f"deprecation warnings: {hits[:2]}" if hits else "no torch.jit DeprecationWarning"


def _user_line(event, path: Path) -> int | None:
    """The example's line a break belongs to: where it happened, or else the deepest frame of the
    example in torch's user traceback (a break inside json.dumps or any() is the user's call line)."""
    def same(name: str) -> bool:
        return os.path.exists(name) and os.path.samefile(name, path)

    if same(event.filename):
        return event.lineno
    for filename, lineno in reversed(getattr(event, "user_frames", [])):
        if same(filename):
            return lineno
    return None


def torch_verdict(rule: type[Rule], path: Path, example: Example) -> tuple[bool, str]:
    """(claim holds for this example as bad, explanation) — for a good example the caller expects False.
    Each example starts from a fresh process's torch.distributions argument validation (on, as `__debug__`):
    an earlier test's direct torch.compile switches it off process-wide (Dynamo does, once), and EX720's good
    twin switches it off at import; it is restored afterwards, so no verdict depends on what ran before."""
    import torch.distributions

    validate = torch.distributions.Distribution._validate_args
    torch.distributions.Distribution.set_default_validate_args(__debug__)
    try:
        return _torch_verdict(rule, path, example)
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)


def _torch_verdict(rule: type[Rule], path: Path, example: Example) -> tuple[bool, str]:
    from compilelint.runtime_probe import observe

    if example.check == "deprecation":
        return deprecation_verdict(path, example)
    _skip_without(example.needs)
    obj, inputs = load_entry(path, example)
    family = rule.family
    check = example.check or {"torchscript": "script", "annotations": "script", "trace": "trace",
                              "graph-break": "dynamo", "recompile": "recompile",
                              "export": "export", "custom-op": "custom-op"}[family]
    if check in ("custom-op", "custom-op-wrong"):
        return _custom_op_verdict(rule, obj, inputs, path, example, wrong_result=check == "custom-op-wrong")
    if check == "custom-op-break":
        # a graph break with the example's gb_id on a marked line (torch's graph-break log); the good twin: none
        report = observe.run_dynamo(obj, inputs)
        detail = f"breaks={[(b.gb_ids, _user_line(b, path)) for b in report.breaks]} skipped={report.skipped_frames} " \
                 f"error={report.error}"
        if example.marked_lines():
            hits = [b for b in report.breaks if example.gb_id in b.gb_ids and _user_line(b, path) in example.marked_lines()]
            return bool(hits), detail
        return bool(report.breaks) or report.skipped_frames > 0 or report.error is not None, detail
    if check in ("script", "script-call"):
        report = observe.run_script(obj, inputs if check == "script-call" else None)
        return (not report.ok, report.error or "scripted fine")
    if check == "script-wrong":
        return _script_wrong_verdict(obj, inputs, bool(example.marked_lines()))
    if check in ("trace", "trace-eval"):
        if check == "trace-eval":  # the snippet puts the module in eval mode before tracing
            obj.eval()
        report = observe.run_trace(obj, inputs)
        if report.error:
            return True, f"trace failed: {report.error}"
        return report.frozen, f"warnings={[w[0][:80] for w in report.warnings]} diverged={report.diverged} {report.divergence}"
    if check == "dynamo":
        report = observe.run_dynamo(obj, inputs)
        marked = set(example.marked_lines())
        ids = {example.gb_id or rule.gb_id, rule.older_gb_ids.get(".".join(torch_release().split(".")[:2]))} - {None}
        hits = [b for b in report.breaks if ids & set(b.gb_ids) and _user_line(b, path) in marked]
        detail = f"breaks={[(b.gb_ids, b.lineno) for b in report.breaks]} skipped={report.skipped_frames} error={report.error}"
        if hits:
            return True, detail
        return bool(report.breaks) or report.skipped_frames > 0 or report.error is not None, "NO MATCHING BREAK: " + detail
    if check == "dynamo-error":
        # Dynamo fails outright (InternalTorchDynamoError) on a marked line: the compiled call raises.
        report = observe.run_dynamo(obj, inputs)
        detail = f"error={report.error} at {report.error_frames[-1:]} breaks={[(b.gb_ids, b.lineno) for b in report.breaks]}"
        if not (report.error or "").startswith("InternalTorchDynamoError"):
            return bool(report.breaks) or report.skipped_frames > 0, "NO MATCHING BREAK: " + detail
        marked = set(example.marked_lines())
        if any(os.path.exists(f) and os.path.samefile(f, path) and n in marked for f, n in report.error_frames):
            return True, detail
        return True, "NO MATCHING BREAK: " + detail
    if check == "export":
        return _export_verdict(obj, inputs, path, example, rule.torch_error, rule.torch_names_line)
    if check == "recompile-eager":
        # The entry itself calls torch.compile (e.g. in a loop): run it eagerly, count recompile records.
        return _eager_recompiles(obj, inputs)
    if check == "recompile":
        report = observe.run_dynamo(obj, inputs)
        return len(report.recompiles) > 0, f"recompiles={[r.splitlines()[-1][:120] for r in report.recompiles]}"
    if check == "recompile-each":
        # Every new input set recompiles (a value or size Dynamo keeps specialising), where automatic dynamic
        # would stop after the first: needs at least three input sets, each new.
        report = observe.run_dynamo(obj, inputs)
        holds = len(inputs) >= 3 and len(report.recompiles) >= len(inputs) - 1
        return holds, f"recompiles={len(report.recompiles)} over {len(inputs)} input sets"
    raise ValueError(f"unknown check {check!r}")


def _export_verdict(obj, inputs, path: Path, example: Example, expected: tuple[str, ...] = (),  # noqa: ANN001
                    names_line: bool = True) -> tuple[bool, str]:
    """torch.export.export(strict=False) on the first input set: (failed, detail). A failure on a line that
    is not marked is reported with "NO MATCHING LINE", one whose message contains none of the rule's
    `torch_error` strings with "WRONG ERROR" (the bad-example test rejects both). For a rule whose error
    names no line (`torch_names_line = False`) the failure must name none: the text decides."""
    from compilelint.runtime_probe import observe

    def ours(name: str) -> bool:
        return os.path.exists(name) and os.path.samefile(name, path)

    report = observe.run_export(obj, inputs[0], is_user_file=ours, strict=False)
    if report.ok:
        return False, "exported fine (strict=False)"
    detail = f"export (strict=False) failed at line {report.lineno}: {report.error}"
    if report.lineno not in example.marked_lines() and not (report.lineno is None and not names_line):
        return True, "NO MATCHING LINE: " + detail
    if expected and not any(text in report.error for text in expected):
        return True, "WRONG ERROR: " + detail
    return True, detail


def _skip_without(needs: str) -> None:
    """Skip (pytest) an example whose check needs what the running machine lacks (Example.needs), before it is imported:
    importing a cpp_extension example builds it."""
    import shutil

    import pytest
    import torch

    if needs == "cxx" and not ((shutil.which("c++") or shutil.which("g++")) and shutil.which("ninja")):
        pytest.skip("needs a C++ compiler and ninja to build the example's extension")
    if needs == "cuda" and not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")


def _script_wrong_verdict(obj, inputs, bad: bool) -> tuple[bool, str]:  # noqa: ANN001
    """check="script-wrong": torch.jit.script accepts the example and the scripted object returns something else
    than eager on some input set, raising nothing (a wrong result). A good twin scripts and returns what eager
    returns on every set (any error counts against it)."""
    import warnings

    import torch

    from compilelint.runtime_probe.observe import _same

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch.jit.script's own DeprecationWarning (2.13)
            scripted = torch.jit.script(obj)
        for args in inputs:
            want, got = obj(*_fresh(args)), scripted(*_fresh(args))
            if not _same(want, got):
                return True, f"scripted returned {got!r}, eager {want!r} on {args!r}"
    except Exception as err:  # noqa: BLE001 - a wrong-result claim is about silence: an error is not it
        return not bad, f"RAISED, NOT SILENT: {type(err).__name__}: {str(err).splitlines()[0][:200]}"
    return False, "scripted returns what eager returns"


def _fresh(args: tuple) -> tuple:
    import torch

    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)


def _named_lines(err: BaseException, path: Path) -> set[int]:
    """The example's lines an error names: `File "...", line N` in its message and the frames of its traceback,
    for the error and the errors it was raised from or during (a fake implementation's frame sits in the
    fake-tensor error that Dynamo's TorchRuntimeError wraps)."""
    import re
    import traceback

    def ours(name: str) -> bool:
        return os.path.exists(name) and os.path.samefile(name, path)

    lines: set[int] = set()
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        lines |= {int(n) for f, n in re.findall(r'File "([^"]+)", line (\d+)', str(err)) if ours(f)}
        lines |= {f.lineno for f in traceback.extract_tb(err.__traceback__) if ours(f.filename)}
        err = err.__cause__ or err.__context__
    return lines


def _custom_op_runs(obj, inputs, path: Path, backend: str) -> dict[str, tuple[str | None, set[int], bool]]:  # noqa: ANN001
    """{"dynamo"/"export": (error or None, the example lines it names, outputs equal eager's)}: one
    torch.compile(fullgraph=True) over every input set, one torch.export.export (strict=False) of the first,
    its program run on that set (the program holds that set's shapes)."""
    import warnings

    import torch
    import torch._dynamo

    from compilelint.runtime_probe.observe import _same

    expected = [obj(*_fresh(args)) for args in inputs]
    runs: dict[str, tuple[str | None, set[int], bool]] = {}
    torch._dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compiled = torch.compile(obj, backend=backend, fullgraph=True)
            same = all(_same(want, compiled(*_fresh(args))) for want, args in zip(expected, inputs))
            runs["dynamo"] = (None, set(), same)
        except Exception as err:  # the claim: compile raises
            runs["dynamo"] = (f"{type(err).__name__}: {err}", _named_lines(err, path), False)
        finally:
            torch._dynamo.reset()
        try:
            program = torch.export.export(obj, _fresh(inputs[0]), strict=False).module()
            same = _same(expected[0], program(*_fresh(inputs[0])))  # exported for the first set's shapes
            runs["export"] = (None, set(), same)
        except Exception as err:
            runs["export"] = (f"{type(err).__name__}: {err}", _named_lines(err, path), False)
    return runs


def _custom_op_verdict(rule: type[Rule], obj, inputs, path: Path, example: Example,  # noqa: ANN001
                       wrong_result: bool) -> tuple[bool, str]:
    """(claim holds, detail). A good example (no marked line) holds as bad when either run raises or returns
    something else than eager. A bad one must fail, for every compile path the rule targets, in the way the
    check names; a failure of another kind is reported as not holding, with the reason. A rule that targets
    TorchScript too has the example scripted: a bad one must fail on a marked line, a good one script."""
    runs = _custom_op_runs(obj, inputs, path, "aot_eager" if wrong_result else "eager")
    if "torchscript" in rule.targets:
        import warnings

        import torch

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch.jit.script's own DeprecationWarning (2.13)
                torch.jit.script(obj)
            runs["torchscript"] = (None, set(), True)
        except Exception as err:  # the claim: scripting raises (every line of the example it names counts)
            runs["torchscript"] = (f"{type(err).__name__}: {err}", _named_lines(err, path), False)
    detail = "; ".join(f"{k}: " + (f"raised {e.splitlines()[0][:300]} (example lines {sorted(lines)})" if e else
                                   f"ran, {'same as' if same else 'DIFFERENT from'} eager")
                       for k, (e, lines, same) in runs.items())
    marked = set(example.marked_lines())
    if not marked:
        return any(e is not None or not same for e, _, same in runs.values()), detail
    for target in (t for t in ("dynamo", "export", "torchscript") if t in rule.targets):
        error, lines, same = runs[target]
        if wrong_result:
            if error is not None:
                return False, f"RAISED, NOT SILENT ({target}): {detail}"
            if same:
                return False, f"{target} returned what eager returns: {detail}"
            continue
        if error is None:
            return False, f"{target} did not fail: {detail}"
        if not lines & marked and rule.torch_names_line:
            return False, f"NO MATCHING LINE ({target}): {detail}"
        if rule.torch_error and target != "torchscript" and not any(text in error for text in rule.torch_error):
            return False, f"WRONG ERROR ({target}): {detail}"
    return True, detail


def _eager_recompiles(obj, inputs) -> tuple[bool, str]:  # noqa: ANN001
    import torch._dynamo

    from compilelint.runtime_probe.observe import _dynamo_logs

    torch._dynamo.reset()
    with _dynamo_logs() as records:
        for args in inputs:
            obj(*args)
    torch._dynamo.reset()
    recompiles = [m for n, m in records if n.endswith("__recompiles") and "Recompiling function" in m]
    return len(recompiles) > 0, f"recompiles={[r.splitlines()[-1][:120] for r in recompiles]}"


def torch_release() -> str:
    """The installed torch's "major.minor.patch", without a local build tag."""
    import torch

    return torch.__version__.split("+")[0]
