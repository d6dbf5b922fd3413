"""Match static findings to runtime events: confirmed / not-reproduced / not-exercised, and turn the
events no finding predicted into runtime-only findings (codes in codes.py).

Works on the children's JSON only (the parent never imports user code or torch).

A static finding is `confirmed` by a target when an event of one of its compile paths sits on its lines:
  dynamo       a graph-break record at the line (with the finding's GB id, or another its rule accepts);
  recompile    a recompile whose failing guard came from the line (torch's "User stack trace"), or whose
               guarded expression (`self.calls`) appears on the line;
  torchscript  torch.jit.script's error location is the line;
  trace        a TracerWarning at the line, or the trace diverged from eager with no TracerWarning anywhere
               (a frozen loop or global warns nowhere: the finding on an executed line is the only lead);
  export       torch.export's error location is the line, or (past export's first error) a data-dependent
               guard at the line when export runs again with real-tensor propagation (draft_export's switch),
               or, for an error that names no line (a dataclass output, autograd.grad, a lazy module), the
               error is the one the finding's rule predicts (`torch_names_line = False`) and the line ran.
Otherwise `not-reproduced` when a line of the finding ran in the eager run, and `not-exercised` when none
did (a `def` line counts as run only when the function was called). TorchScript and export stop at their
first error, Dynamo runs a whole frame eagerly after a break in a loop, and a trace that diverged with
TracerWarnings elsewhere cannot be pinned on one line: the child then re-checks such lines one at a time
(isolate.py; payload["isolated"]), and
  dynamo/recompile  a graph break / recompile at the line when its statement is compiled alone with the
                    locals it had in eager (a statement that compiles cleanly alone: not-reproduced);
  torchscript       the error at the line when the model is scripted again with the methods that failed
                    before stubbed (@torch.jit.unused), when the method is scripted again with compilelint's
                    own fixes applied at the lines that failed before it, when the function's header is
                    scripted alone, or when
                    the statement is scripted alone with its locals typed from the eager run (this one only
                    confirms: a local's TorchScript type can differ from its eager value's);
  trace             a loop whose body the traced graph recorded (unrolled) and whose trip count on some input
                    set differs from input set 0's (the trace-time one), or a plain attribute assigned on the
                    line that changed over the eager calls while the graph recorded nothing at the line.
A finding no re-check reached stays `unverified`, with the reason as evidence (masked). Over several
targets the strongest state wins: confirmed, not-reproduced, masked, not-exercised.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from compilelint.findings import (CONFIRMED, NOT_EXERCISED, NOT_REPRODUCED, RUNTIME_ONLY, UNVERIFIED, Finding)
from compilelint.runtime_probe.codes import SEVERITY

_MASKED = "masked"  # internal: the line ran but the check stopped before it (reported as unverified)
_RANK = {CONFIRMED: 5, NOT_REPRODUCED: 4, _MASKED: 3, NOT_EXERCISED: 2, UNVERIFIED: 1}
_FUNCTIONS: dict[str, list[tuple[int, int, int]]] = {}


def functions(path: str) -> list[tuple[int, int, int]]:
    """(header start incl. decorators, first body line, last line) of every function in a file (ast)."""
    key = _real(path)
    if key not in _FUNCTIONS:
        spans = []
        try:
            with open(key, encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                    spans.append((start, node.body[0].lineno, node.end_lineno or node.lineno))
        except (OSError, SyntaxError, ValueError):
            pass
        _FUNCTIONS[key] = spans
    return _FUNCTIONS[key]


def _innermost(path: str, line: int) -> tuple[int, int, int] | None:
    spans = [s for s in functions(path) if s[0] <= line <= s[2]]
    return max(spans, key=lambda s: s[0]) if spans else None


def _real(path: str) -> str:
    return os.path.realpath(path)


@dataclass
class TargetRun:
    """One target's outcome as the parent sees it."""

    target: str
    status: str  # ok | error | crashed | timeout | oom | invalid
    reason: str
    payload: dict
    wall_s: float = 0.0
    target_file: str | None = None
    factory: str = ""

    @property
    def checks(self) -> dict:
        return self.payload.get("checks", {}) if self.payload else {}

    def coverage(self) -> dict[str, set[int]]:
        """Lines run inside called functions (with their headers)."""
        cov = (self.payload or {}).get("coverage", {})
        return {_real(f): set(lines) for f, lines in cov.items()}

    def executed(self, f: Finding) -> bool:
        """A line of the finding ran: in a called function, or in a module/class body outside any
        function header (a `def` line runs at import without its function being called)."""
        span = _span(f)
        if any(line in self.coverage().get(_real(f.path), ()) for line in span):
            return True
        body = set((self.payload or {}).get("module_coverage", {}).get(f.path, ())) | set(
            (self.payload or {}).get("module_coverage", {}).get(_real(f.path), ()))
        headers = [(a, b) for a, b, _ in functions(f.path)]
        return any(line in body and not any(a <= line < b for a, b in headers) for line in span)

    def event_files(self) -> set[str]:
        files: set[str] = set()
        c = self.checks
        for b in c.get("dynamo", {}).get("breaks", []):
            files.add(b["file"])
        for r in c.get("dynamo", {}).get("recompiles", []):
            files.update(f for f, _ in r["locations"])
        for w in c.get("trace", {}).get("warnings", []):
            files.add(w["file"])
        for key in ("torchscript", "export"):
            if c.get(key, {}).get("file"):
                files.add(c[key]["file"])
        err = (self.payload or {}).get("error") or {}
        if err.get("file"):
            files.add(err["file"])
        if self.target_file:
            files.add(self.target_file)
        return {f for f in files if f and os.path.isfile(f)}


def _span(f: Finding) -> range:
    return range(f.line, max(f.end_line, f.line) + 1)


def claims_lineless_error(code: str, error: str) -> bool:
    """Whether rule `code` predicts an export error that names no line of the model (its `torch_names_line` is
    False) and `error` is that error (one of its `torch_error` texts)."""
    from compilelint.rules.registry import all_rules

    rule = all_rules().get(code)
    return rule is not None and not rule.torch_names_line and any(text in error for text in rule.torch_error)


def claims_dynamo_error(code: str) -> bool:
    """Whether rule `code` predicts Dynamo failing outright (an InternalTorchDynamoError) rather than a break."""
    from compilelint.rules.registry import all_rules

    rule = all_rules().get(code)
    return rule is not None and rule.dynamo_error


def claims_resume_frame(code: str) -> bool:
    """Whether rule `code` is reported at a graph break whose resume function is the frame it says recompiles."""
    from compilelint.rules.registry import all_rules

    rule = all_rules().get(code)
    return rule is not None and rule.claims_resume_frame


def _frame_of_break(f: Finding, r: dict, dyn: dict) -> bool:
    """For a rule reported at a graph break (claims_resume_frame): `r` recompiled the resume function of that
    break, or the function holding it (the nearest recompiling frame of the file that starts above it)."""
    if _real(r.get("file") or "") != _real(f.path) or not claims_resume_frame(f.code):
        return False
    if r.get("resumed_break_line") is not None:
        return r["resumed_break_line"] == f.line
    starts = [x.get("line") or 0 for x in dyn.get("recompiles", []) if x.get("resumed_break_line") is None
              and _real(x.get("file") or "") == _real(f.path) and (x.get("line") or 0) <= f.line]
    return bool(starts) and r.get("line") == max(starts)


def _at(f: Finding, file: str | None, line: int | None) -> bool:
    return bool(file) and line is not None and _real(file) == _real(f.path) and line in _span(f)


def _same_break(f: Finding, gb_ids: list[str]) -> bool:
    """The break is the one the finding predicts: its GB id, or another its rule says the construct breaks with
    (`Rule.confirming_gb_ids`: a rule that cannot tell int from float tensors, an older release's id), or any
    break when the finding gives no id."""
    if not f.gb_id:
        return True
    from compilelint.rules.registry import all_rules

    rule = all_rules().get(f.code)
    accepted = rule.confirming_gb_ids(f.gb_id) if rule is not None else frozenset({f.gb_id})
    return accepted is None or any(g in accepted for g in gb_ids)


def _guard_subject(reason: str) -> str:
    """`self.calls == 1` -> `self.calls`; `L['self'].calls` is written back as `self.calls`."""
    subject = reason.split(" ")[0]
    subject = subject.replace("L['self']", "self")
    return subject if subject and not subject.startswith("___") else ""


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


@dataclass
class Verdict:
    state: str
    evidence: list[str] = field(default_factory=list)


def judge(f: Finding, run: TargetRun, user_trace_warnings: bool) -> Verdict | None:
    """This target's verdict on one static finding, or None when the target says nothing about it."""
    checks = run.checks
    kinds = [k for k in f.targets if k in checks or (k == "recompile" and "dynamo" in checks)]
    if not kinds:
        return None
    tag = f"[{run.target}]"
    evidence: list[str] = []
    dyn = checks.get("dynamo", {})
    if "dynamo" in kinds:
        for b in dyn.get("breaks", []):
            if _at(f, b["file"], b["line"]) and _same_break(f, b["gb_ids"]):
                skipped = ", whole frame skipped" if b.get("frame_skipped") else ""
                evidence.append(f"{tag} dynamo: graph break {'/'.join(b['gb_ids']) or '(no id)'} at "
                                f"{_rel(b['file'])}:{b['line']}{skipped}")
        crashed = (dyn.get("error") or "").startswith("InternalTorchDynamoError")
        innermost = dyn.get("error_frames", [])[-1:]
        if crashed and innermost and _at(f, *innermost[0]) and claims_dynamo_error(f.code):
            evidence.append(f"{tag} dynamo: the compiled call failed at {_rel(innermost[0][0])}:{innermost[0][1]} "
                            f"({dyn['error'][:200]})")
    if "recompile" in kinds:
        hits = [r for r in dyn.get("recompiles", [])
                if any(_at(f, file, line) for file, line in r["locations"])
                or (r["reasons"] and _real(r["file"]) == _real(f.path) and _guard_subject(r["reasons"][0])
                    and _guard_subject(r["reasons"][0]) in f.source_line)
                or _frame_of_break(f, r, dyn)]
        if hits:
            evidence.append(f"{tag} recompile: {len(hits)} recompile(s) of {hits[0]['function']}, guard failed: "
                            f"{hits[0]['reasons'][0] if hits[0]['reasons'] else '?'}")
        sized = _size_recompiles(f, dyn) if not hits and run.executed(f) else []
        if sized:
            evidence.append(f"{tag} recompile: {len(sized)} recompiles of {sized[0]['function']} on input size "
                            f"changes ({sized[0]['reasons'][0]}; automatic dynamic stops after one): a size was "
                            f"specialised, and this line ran")
    script = checks.get("torchscript")
    if "torchscript" in kinds and script and not script["ok"] and _at(f, script.get("file"), script.get("line")):
        evidence.append(f"{tag} torchscript: {script['error']}")
    trace = checks.get("trace")
    if "trace" in kinds and trace:
        for w in trace.get("warnings", []):
            if _at(f, w["file"], w["line"]):
                evidence.append(f"{tag} trace: TracerWarning at {_rel(w['file'])}:{w['line']}: {w['message'][:120]}")
                break
    export = checks.get("export")
    if "export" in kinds and export and not export["ok"]:
        if _at(f, export.get("file"), export.get("line")):
            evidence.append(f"{tag} export: {export['error']}")
        elif export.get("line") is None and claims_lineless_error(f.code, export["error"]) and run.executed(f):
            evidence.append(f"{tag} export: {export['error']} (torch names no line; this is the error {f.code} "
                            f"predicts, and the finding's line ran)")
        else:
            for more in export.get("more", []):
                if _at(f, more["file"], more["line"]):
                    evidence.append(f"{tag} export (isolated: exported again with real-tensor propagation, as "
                                    f"torch.export.draft_export does, which goes on past the first error at line "
                                    f"{export.get('line')}): {more['error']} at {_rel(more['file'])}:{more['line']}")
                    break

    iso = (run.payload or {}).get("isolated") or {}
    iso_dyn = iso.get("dynamo") or {}
    cleared: dict[str, str] = {}  # kind -> what the isolated check saw instead (no event at this line)
    if "dynamo" in kinds:
        for b in iso_dyn.get("breaks", []):
            if _at(f, b["file"], b["line"]) and _same_break(f, b["gb_ids"]):
                evidence.append(f"{tag} dynamo (isolated: the frame was skipped whole after the break at line "
                                f"{b['masked_by']}; this statement compiled alone with the locals it had in eager): "
                                f"graph break {'/'.join(b['gb_ids']) or '(no id)'} at {_rel(b['file'])}:{b['line']}")
                break
    if "recompile" in kinds:
        here = [r for r in iso_dyn.get("recompiles", []) if _at(f, r["file"], r["line"])]
        # without dynamic=True one size-mismatch recompile is automatic dynamic at work, not a specialisation
        if here and iso_dyn.get("dynamic") is not True and all(r["reasons"] and _shape_guard(r["reasons"][0])
                                                              for r in here) and len(here) < 2:
            cleared["recompile"] = (f"this statement compiled alone recompiled once on a size change "
                                    f"({here[0]['reasons'][0]}), which automatic dynamic absorbs: no specialisation shown")
            here = []
        if here:
            r = here[0]
            evidence.append(f"{tag} recompile (isolated: the frame was skipped whole after the break at line "
                            f"{r['masked_by']}; this statement compiled alone, called with its eager locals of "
                            f"{r['calls']} input sets): {len(here)} recompile(s), guard failed: {(r['reasons'] or ['?'])[0]}")
    for path, line, masked_by, calls, _ in iso_dyn.get("clean", []):
        if _at(f, path, line):
            what = (f"this statement compiled alone with its eager locals ({calls} call(s)) gave no "
                    f"{{}} at this line (the frame had been skipped whole after the break at line {masked_by})")
            if "dynamo" in kinds and line > masked_by:
                cleared["dynamo"] = what.format("graph break")
            if "recompile" in kinds:
                cleared["recompile"] = what.format("recompile")
    iso_ts = iso.get("torchscript") or {}
    if "torchscript" in kinds:
        for e in iso_ts.get("errors", []):
            if _at(f, e["file"], e["line"]):
                evidence.append(f"{tag} torchscript (isolated: the header of `{e['function']}` scripted alone, "
                                f"after the module's script stopped at an earlier error): {e['error']}")
                break
        for e in (iso.get("torchscript_fixed") or {}).get("errors", []):
            if _at(f, e["file"], e["line"]) and not any(x.startswith(f"{tag} torchscript") for x in evidence):
                evidence.append(f"{tag} torchscript (isolated: the method scripted again with compilelint's fixes "
                                f"applied at line(s) {', '.join(map(str, e['fixed']))}, where it failed before): "
                                f"{e['error']}")
                break
        for e in (iso.get("torchscript_statements") or {}).get("errors", []):
            if _at(f, e["file"], e["line"]) and not any(x.startswith(f"{tag} torchscript") for x in evidence):
                evidence.append(f"{tag} torchscript (isolated: this statement scripted alone, its locals typed from "
                                f"the eager run, after the module's script stopped at an earlier error): {e['error']}")
                break
        bodies = iso.get("torchscript_bodies") or {}
        for e in bodies.get("errors", []):
            if _at(f, e["file"], e["line"]):
                evidence.append(f"{tag} torchscript (isolated: scripted again with {', '.join(e['stubs'])} stubbed as "
                                f"@torch.jit.unused after its error): {e['error']}")
                break
        if bodies.get("clean_after") and not any(_real(p) == _real(f.path) and lo <= f.line <= hi
                                                 for p, lo, hi in bodies.get("stubbed", [])):
            cleared["torchscript"] = ("the model scripted without an error once the methods that failed were stubbed "
                                      "as @torch.jit.unused; this line was not in them")
        for path, def_line in iso_ts.get("clean", []):
            header = next((b for a, b, _ in functions(f.path) if a <= def_line < b), None) \
                if _real(path) == _real(f.path) else None
            if header and def_line <= f.line < header:
                cleared["torchscript"] = "the function's header scripted alone without an error"
    if "trace" in kinds and trace and iso.get("trace"):
        state, note = _trace_line(f, run, trace, iso["trace"])
        if state == CONFIRMED:
            evidence.append(f"{tag} trace: {note}")
        elif state == NOT_REPRODUCED:
            cleared["trace"] = note

    executed = run.executed(f)
    if not evidence and executed and "trace" in kinds and trace and trace.get("diverged") and not user_trace_warnings:
        evidence.append(f"{tag} trace: diverged from eager with no TracerWarning anywhere ({trace['divergence']})")
    if evidence:
        return Verdict(CONFIRMED, evidence)
    if not executed:
        return Verdict(NOT_EXERCISED, [f"{tag} line never ran in the eager run of {run.payload.get('input_sets', 0)} "
                                       "input set(s)"])
    # A check that stops at its first error, or a Dynamo frame skipped whole after an earlier break in the
    # same function, never reached this line: no verdict, say why.
    masked: dict[str, str] = {}
    for k in ("torchscript", "export"):
        if k in kinds and checks.get(k) and not checks[k]["ok"]:
            where = f" at {_rel(checks[k]['file'])}:{checks[k]['line']}" if checks[k].get("file") else ""
            masked[k] = f"{k} stopped at an earlier error{where}"
    if "trace" in kinds and trace and trace.get("diverged"):
        # wrong results did show, but TracerWarnings at other lines may explain them: no attribution
        masked["trace"] = (f"the trace diverged from eager ({trace['divergence'][:120]}) but TracerWarnings at other "
                           "lines could explain it: not attributable to this line")
    home = _innermost(f.path, f.line)
    for b in dyn.get("breaks", []) if home else ():
        if not (b.get("frame_skipped") and _real(b["file"]) == _real(f.path) and home[0] <= b["line"] <= home[2]):
            continue
        why = (f"Dynamo skipped this frame whole after the break at {_rel(b['file'])}:{b['line']} "
               f"({'/'.join(b['gb_ids'])})")
        if "dynamo" in kinds and b["line"] < f.line:
            masked["dynamo"] = why + " and never traced this line"
        if "recompile" in kinds:  # a frame run eagerly has no guards: it cannot recompile
            masked["recompile"] = why + ", so it was never compiled and could not recompile"
    for k in cleared:
        masked.pop(k, None)
    if iso.get("error"):
        for k in list(masked):
            masked[k] += f" (the isolated re-check failed: {iso['error'][:160]})"
    if masked and set(kinds) <= set(masked):
        return Verdict(_MASKED, [f"{tag} {why}" for why in masked.values()])
    return Verdict(NOT_REPRODUCED, [f"{tag} line ran; {', '.join(kinds)} showed no event here"]
                   + [f"{tag} {k} (isolated): {why}" for k, why in cleared.items()])


_ASSIGN_TO = r"self\.{attr}\s*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)"


def _hits(hits: dict, path: str, line: int) -> int:
    for file, counts in hits.items():
        if _real(file) == _real(path):
            return int(counts.get(str(line), 0))
    return 0


def _graph_nodes(trace: dict, path: str, lines: range) -> int:
    for file, counts in (trace.get("graph_lines") or {}).items():
        if _real(file) == _real(path):
            return sum(int(counts.get(str(n), 0)) for n in lines)
    return 0


def _loop_at(path: str, line: int) -> ast.stmt | None:
    try:
        with open(_real(path), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return None
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n.lineno == line), None)


def _trace_line(f: Finding, run: TargetRun, trace: dict, iso: dict) -> tuple[str | None, str]:
    """A per-line verdict for a trace finding, from the traced graph's recorded lines and an eager re-run:
    a loop whose body the graph recorded (unrolled) and whose trip count on some input set differs from the
    trace-time one (input set 0); a plain attribute assigned on the line that changed over the eager calls
    while the graph recorded nothing at the line. (None, "") when neither applies."""
    import re

    hits = iso.get("hits") or []
    if not any(_hits(h, f.path, n) for h in hits for n in _span(f)):
        return None, ""  # the line did not run in this target's re-run
    loop = _loop_at(f.path, f.line)
    if loop is not None:
        body = range(loop.body[0].lineno, (loop.end_lineno or loop.lineno) + 1)
        trips = [_hits(h, f.path, loop.body[0].lineno) for h in hits]
        nodes = _graph_nodes(trace, f.path, body)
        if nodes and len(set(trips)) > 1:
            return CONFIRMED, (f"the traced graph unrolled this loop ({nodes} node(s) recorded from its body, lines "
                               f"{body.start}-{body.stop - 1}, with the {trips[0]} pass(es) of input set 0); eager runs "
                               f"the body {trips} times over the input sets, and the trace diverged "
                               f"({trace.get('divergence', '')[:100]})")
        if nodes:
            return NOT_REPRODUCED, (f"the traced graph unrolled this loop ({nodes} node(s) from its body) but its body ran "
                                    f"{trips[0]} times on every input set: the frozen trip count is right for these inputs")
        return NOT_REPRODUCED, "the traced graph recorded no op from this loop's body"
    for name, values in (iso.get("changed_attrs") or {}).items():
        attr = name.rsplit(".", 1)[-1]
        if re.search(_ASSIGN_TO.format(attr=re.escape(attr)), f.source_line):
            if _graph_nodes(trace, f.path, _span(f)):
                return None, ""
            return CONFIRMED, (f"`self.{attr}` changed over the eager calls ({' -> '.join(values)}) but the traced "
                               f"graph recorded nothing at this line: the trace keeps the value it had when traced, "
                               f"and it diverged ({trace.get('divergence', '')[:100]})")
    return None, ""


def _runtime_finding(code: str, message: str, path: str, line: int, evidence: list[str], gb_id: str | None = None,
                     targets: tuple[str, ...] = ()) -> Finding:
    source_line = ""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for i, text in enumerate(fh, 1):
                if i == line:
                    source_line = text.strip()
                    break
    except OSError:
        pass
    return Finding(code=code, message=message, path=_rel(path), line=max(1, line), col=0, end_line=max(1, line),
                   end_col=0, severity=SEVERITY.get(code, "warning"), targets=targets, gb_id=gb_id,
                   source_line=source_line, probe_state=RUNTIME_ONLY, evidence=evidence)


def factory_line(path: str | None, factory: str) -> int:
    """Line of `def factory` in the target file (static: ast, no import); 1 when not found."""
    if not path:
        return 1
    try:
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
    except (OSError, SyntaxError, ValueError):
        return 1
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == factory:
            return node.lineno
    return 1


def _sentence(text: str) -> str:
    first = text.split(". ")[0].strip()
    return first if len(first) <= 200 else first[:197] + "..."


def _first_reason(message: str) -> str:
    """Dynamo's own one-line explanation of the break ("Explanation: ..."), else the reason line."""
    for line in message.splitlines():
        if line.strip().startswith("Explanation:"):
            return _sentence(line.strip()[len("Explanation:"):].strip())
    for line in message.splitlines():
        if line.startswith("Graph Break Reason:"):
            return _sentence(line[len("Graph Break Reason:"):].strip())
    return ""


# Rules whose hazard is a size Dynamo specialises (a size formatted into an f-string, computed on by NumPy, used
# as a dict key, passed to torch.as_tensor or hash): the failing guards are the input's size guards, which name no line. Automatic dynamic stops
# after one size-change recompile, so two or more of the same frame show a specialised size.
SIZE_SPECIALISING = {"RC512", "RC513", "RC514", "RC516"}


def _size_recompiles(f: Finding, dyn: dict) -> list[dict]:
    """The size-change recompiles of the frame holding `f` (same file, the function starting at or before
    f's line), when there are at least two of them; else []. A finding in a helper that `forward` calls (and
    Dynamo inlines) may sit above `forward`: when no frame starts at or before its line, any recompiling frame
    of the same file is taken."""
    if f.code not in SIZE_SPECIALISING:
        return []
    sized = [r for r in dyn.get("recompiles", []) if r.get("file") and _real(r["file"]) == _real(f.path)
             and r["reasons"] and _size_guard(r["reasons"][0])]
    rs = [r for r in sized if (r.get("line") or 0) <= f.line] or sized
    by_fn: dict[tuple, list[dict]] = {}
    for r in rs:
        by_fn.setdefault((r["function"], r.get("line")), []).append(r)
    best = max(by_fn.values(), key=len, default=[])
    return best if len(best) >= 2 else []


def _size_guard(reason: str) -> bool:
    """A guard on an input's size: a size mismatch, or an expression of one (`(img.size()[3] / 16) == 2.75`,
    what NumPy's use of a size leaves)."""
    return _shape_guard(reason) or ".size()[" in reason


def _shape_guard(reason: str) -> bool:
    """An input's size/stride changed: Dynamo recompiles once and then marks the dim dynamic by itself."""
    return "size mismatch" in reason or "stride mismatch" in reason


def runtime_only(run: TargetRun, statics: list[Finding], user_file) -> list[Finding]:  # noqa: ANN001
    """Findings for the events of `run` that no static finding explains."""
    out: list[Finding] = []
    tag = f"[{run.target}]"
    if run.status != "ok":
        err = (run.payload or {}).get("error") or {}
        path = err.get("file") if err.get("file") and os.path.isfile(err["file"]) else run.target_file
        line = err.get("line") if err.get("file") and path == err.get("file") else factory_line(run.target_file,
                                                                                               run.factory)
        ev = [f"{tag} {run.reason}"]
        if err.get("stage"):
            ev.append(f"{tag} stage: {err['stage']}")
        if path:
            out.append(_runtime_finding("RT001", f"probe of {run.target} failed ({run.status}): {run.reason}", path,
                                        line or 1, ev))
    checks = run.checks

    def explained(kind: str, file: str, line: int, gb: str | None = None) -> list[Finding]:
        return [f for f in statics if kind in f.targets and _at(f, file, line) and (gb is None or _same_break(f, [gb]))]

    dyn = checks.get("dynamo", {})
    seen: set[tuple] = set()
    break_findings: dict[tuple[str, int], Finding] = {}
    for b in dyn.get("breaks", []):
        if not user_file(b["file"]):
            continue
        key = (_real(b["file"]), b["line"], tuple(b["gb_ids"]))
        if key in seen:
            continue
        seen.add(key)
        gb = b["gb_ids"][0] if b["gb_ids"] else None
        statics_here = explained("dynamo", b["file"], b["line"], gb)
        if statics_here:
            break_findings[(_real(b["file"]), b["line"])] = statics_here[0]
            continue
        code = "RT402" if b.get("frame_skipped") else "RT401"
        what = "Dynamo skipped the whole frame after this graph break" if code == "RT402" else "graph break"
        f = _runtime_finding(code, f"{what} not predicted by any rule: {gb or '(no GB id)'} "
                                   f"{_first_reason(b['message'])}", b["file"], b["line"],
                             [f"{tag} dynamo: graph break {'/'.join(b['gb_ids'])} at {_rel(b['file'])}:{b['line']}"],
                             gb_id=gb, targets=("dynamo",))
        break_findings[(_real(b["file"]), b["line"])] = f
        out.append(f)

    groups: dict[tuple, list[dict]] = {}
    for r in dyn.get("recompiles", []):
        if r.get("on_break_value") and r.get("resumed_break_line"):
            owner = break_findings.get((_real(r["file"]), r["resumed_break_line"]))
            if owner is not None:
                note = f"{tag} recompile: the resumed code guards on the value the break returned ({r['reasons'][0]})"
                if note not in owner.evidence:
                    owner.evidence.append(note)
                continue
        statics_hit = [f for f in statics if "recompile" in f.targets and (
            any(_at(f, file, line) for file, line in r["locations"])
            or (r["reasons"] and _real(r["file"]) == _real(f.path) and _guard_subject(r["reasons"][0])
                and _guard_subject(r["reasons"][0]) in f.source_line)
            or any(x is r for x in _size_recompiles(f, dyn)) or _frame_of_break(f, r, dyn))]
        if statics_hit:
            continue
        loc = next(((file, line) for file, line in r["locations"] if user_file(file)), (r["file"], r["line"]))
        if not user_file(loc[0]):
            continue
        groups.setdefault((_real(loc[0]), loc[1]), []).append(r)
    for (file, line), rs in groups.items():
        if all(r["reasons"] and _shape_guard(r["reasons"][0]) for r in rs):
            # input sets of other shapes: automatic dynamic at work (a recompile or two, then a dynamic dim);
            # counted in the summary, not a finding (compile with dynamic=True / mark_dynamic to avoid it)
            continue
        reasons = list(dict.fromkeys(r["reasons"][0] for r in rs if r["reasons"]))
        out.append(_runtime_finding(
            "RT501", f"{len(rs)} recompile(s) of {rs[0]['function']} not predicted by any rule: guard failed on "
                     f"`{reasons[0] if reasons else '?'}`; keep the value in a tensor, mark it dynamic, or keep it "
                     "constant between calls", file, line,
            [f"{tag} recompile: {r}" for r in reasons[:4]], targets=("recompile",)))

    script = checks.get("torchscript")
    if script and not script["ok"]:
        file, line = script.get("file"), script.get("line")
        if not (file and user_file(file) and explained("torchscript", file, line)):
            path = file if file and user_file(file) else run.target_file
            if path:
                out.append(_runtime_finding("RT101", f"torch.jit.script failed, not predicted by any rule: "
                                                     f"{script['error']}", path,
                                            line if path == file else factory_line(run.target_file, run.factory),
                                            [f"{tag} torchscript: {script['error']}"], targets=("torchscript",)))
    trace = checks.get("trace")
    if trace:
        user_warnings = [w for w in trace.get("warnings", []) if user_file(w["file"])]
        reported: set[tuple] = set()
        for w in user_warnings:
            key = (_real(w["file"]), w["line"], w["message"])
            if key in reported:
                continue
            reported.add(key)
            if not explained("trace", w["file"], w["line"]):
                out.append(_runtime_finding("RT301", f"TracerWarning not predicted by any rule: {_sentence(w['message'])}",
                                            w["file"], w["line"], [f"{tag} trace: {w['message'][:300]}"],
                                            targets=("trace",)))
        if trace.get("error") and run.target_file:
            out.append(_runtime_finding("RT302", f"torch.jit.trace failed: {trace['error']}", run.target_file,
                                        factory_line(run.target_file, run.factory),
                                        [f"{tag} trace: {trace['error']}"], targets=("trace",)))
        elif trace.get("diverged") and not user_warnings and run.target_file:
            predicted = [f for f in statics if "trace" in f.targets and run.executed(f)]
            if not predicted:
                out.append(_runtime_finding("RT302", f"traced output diverges from eager and no rule predicted it: "
                                                     f"{trace['divergence']}", run.target_file,
                                            factory_line(run.target_file, run.factory),
                                            [f"{tag} trace: {trace['divergence']}"], targets=("trace",)))
    export = checks.get("export")
    if export and not export["ok"]:
        file, line = export.get("file"), export.get("line")
        lineless = line is None and any("export" in f.targets and claims_lineless_error(f.code, export["error"])
                                        and run.executed(f) for f in statics)
        if not lineless and not (file and user_file(file) and explained("export", file, line)):
            path = file if file and user_file(file) else run.target_file
            if path:
                out.append(_runtime_finding("RT601", f"torch.export.export failed, not predicted by any rule: "
                                                     f"{export['error']}", path,
                                            line if path == file else factory_line(run.target_file, run.factory),
                                            [f"{tag} export: {export['error']}"], targets=("export",)))
    return out


def _touched(run: TargetRun, path: str) -> bool:
    """Whether a target's run executed any line of this file (its functions or its module body)."""
    module_coverage = (run.payload or {}).get("module_coverage", {})
    return bool(run.coverage().get(_real(path)) or module_coverage.get(path) or module_coverage.get(_real(path)))


def merge(statics: list[Finding], runs: list[TargetRun]) -> None:
    """Set probe_state/evidence on each static finding from every target's verdict (strongest wins)."""
    for f in statics:
        best: Verdict | None = None
        notes: list[str] = []
        untouched = 0
        for run in runs:
            trace = run.checks.get("trace") or {}
            user_warnings = any(os.path.isfile(w["file"]) for w in trace.get("warnings", []))
            v = judge(f, run, user_warnings)
            if v is None:
                continue
            if v.state == NOT_EXERCISED and not _touched(run, f.path):
                untouched += 1  # this target never loaded the file: it says nothing about the line
                continue
            if best is None or _RANK[v.state] > _RANK[best.state]:
                best = v
            notes.extend(v.evidence)
        if best is None and untouched:
            best = Verdict(NOT_EXERCISED, [f"none of the {untouched} probed target(s) ran code in {_rel(f.path)}"])
        if best is None:
            continue
        f.probe_state = UNVERIFIED if best.state == _MASKED else best.state
        f.evidence = best.evidence + [n for n in notes if n not in best.evidence and best.state != CONFIRMED]
