"""Score today's static rules against the oracle's committed events (README.md, "How it is scored").

    python benchmarks/realworld/score.py [--events events.jsonl] [--json OUT] [--sources DIR]

For each library in the events: its source at the version the oracle ran (the installed copy when the
versions agree, else the wheel fetched with `pip download --no-deps` into --sources and unpacked; never
imported), the files where the eager run executed a line linted with `compilelint --isolated --targets all` to SARIF,
and the SARIF results set against the events, per target:
  recall     scorable event sites with a static claim of that target on their line (recompiles: in their frame)
  precision  static claim sites on lines that ran in the eager run that an event of that target confirms
Prints one table (markdown) and optionally writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import ast
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
EVENTS = os.path.join(HERE, "events.jsonl")
FLOOR = os.path.join(HERE, "floor.json")
TARGETS = ("torchscript", "trace", "dynamo", "recompile", "export")
SOURCES = os.path.join(os.path.expanduser("~"), ".cache", "compilelint-realworld")
# Events that confirm a claim although they are not scored for recall: the warning was raised in torch's own
# code, but the line it is pinned to is the library's call that led there, which is what a rule names.
RESUMED = "torch_dynamo_resume_in_"  # the function Dynamo makes of what follows a graph break
CONFIRMING_REASONS = {None, "inside torch: torch's own code reported it (pinned to the library line that called it)",
                      "inside torch: a guard on input sizes that torch's own kernels added (CPU convolution's "
                      "backend choice), no library line",
                      "automatic dynamic: the first change of an int or float input (one recompile, then dynamic)",
                      "run time: a line of the signature of a function on the TorchScript traceback of a scripted "
                      "class that failed when called (pinned there from the line torch names)"}


def load(path: str) -> tuple[list[dict], list[dict]]:
    models, events = [], []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                (models if rec["record"] == "model" else events).append(rec)
    return models, events


def _lines(ranges: str) -> set[int]:
    out: set[int] = set()
    for part in filter(None, ranges.split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out


def source_root(dist: str, package: str, version: str, cache: str) -> str:
    """A folder holding `package/` at `version`: the installed one when it matches, else the unpacked wheel."""
    try:
        if importlib.metadata.version(dist) == version:
            spec = importlib.util.find_spec(package)
            if spec and spec.submodule_search_locations:
                return os.path.dirname(list(spec.submodule_search_locations)[0])
    except importlib.metadata.PackageNotFoundError:
        pass
    root = os.path.join(cache, f"{dist}-{version}")
    if os.path.isdir(os.path.join(root, package)):
        return root
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                        "-d", tmp, f"{dist}=={version}"], check=True)
        wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
        if not wheels:
            raise RuntimeError(f"no wheel for {dist}=={version}")
        with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as zf:
            zf.extractall(root + ".part")
    os.replace(root + ".part", root)
    return root


def lint_sarif(root: str, files: list[str]) -> dict:
    """compilelint on `files` (relative to root) as a user would run it, SARIF back."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.sarif")
        cmd = [sys.executable, "-m", "compilelint", "--isolated", "--targets", "all", "--no-cache", "--exit-zero",
               "--output-format", "sarif", "-o", out, *files]
        subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as fh:
            return json.load(fh)


def claims_from_sarif(sarif: dict, files: list[str]) -> list[dict]:
    """The results, with each URI mapped back to the linted file it names: SARIF URIs are relative to the
    repository top, which is not the library's folder when that folder sits inside a git checkout (a venv in
    a project)."""
    linted = set(files)
    out = []
    for run in sarif.get("runs", []):
        for r in run.get("results", []):
            loc = r["locations"][0]["physicalLocation"]
            region = loc.get("region", {})
            start = region.get("startLine", 0)
            uri = urllib.parse.unquote(loc["artifactLocation"]["uri"])
            if uri not in linted:
                uri = next((f for f in files if uri.endswith("/" + f)), uri)
            props = r.get("properties", {})
            # one result for one construct several rules report (properties.also): a claim of each rule for its own
            # targets, as if reported apart
            also = props.get("also", [])
            shared = {t for part in also for t in part.get("targets", [])}
            for rule, targets, gb_id, text in [
                    (r["ruleId"], [t for t in props.get("targets", []) if t not in shared], props.get("gbId"),
                     r.get("message", {}).get("text", "")),
                    *((p["ruleId"], p.get("targets", []), p.get("gbId"), p.get("message", "")) for p in also)]:
                out.append({"rule": rule, "file": uri, "line": start, "end_line": max(region.get("endLine", start), start),
                            "targets": targets, "gb_id": gb_id, "order": (region.get("startColumn", 0), rule, text)})
    # in the order the rules' findings have apart (a line's first claim of a target names the rule in the table)
    out.sort(key=lambda c: (c["file"], c["line"], c["order"]))
    for c in out:
        del c["order"]
    return out


class Frames:
    """Function spans of source files, for recompiles (torch names the frame, not the line)."""

    def __init__(self, roots: dict[str, str]) -> None:
        self.roots = roots
        self._spans: dict[str, list[tuple[int, int, int]]] = {}

    def spans(self, library: str, rel: str) -> list[tuple[int, int, int]]:
        key = f"{library}:{rel}"
        if key not in self._spans:
            spans = []
            try:
                with open(os.path.join(self.roots[library], rel), encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
                for node in ast.walk(tree):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                        spans.append((start, node.lineno, node.end_lineno or node.lineno))
            except (OSError, SyntaxError, KeyError):
                pass
            self._spans[key] = spans
        return self._spans[key]

    def resumed(self, library: str, rel: str, line: int) -> tuple[int, int] | None:
        """A resume function's code: from the break at `line` to the end of the innermost function holding it."""
        ends = [end for start, _, end in self.spans(library, rel) if start <= line <= end]
        return (line, min(ends)) if ends else None

    def inlined(self, library: str, rel: str, span: tuple[int, int]) -> list[tuple[int, int]]:
        """Spans of the same file's functions a frame at `span` calls, which Dynamo inlines into it: methods called
        as `self.m(...)`, the forward of a submodule built in `__init__` (`self.head = Head(...)`, then
        `self.head(...)`), module-level functions; followed three calls deep."""
        try:
            with open(os.path.join(self.roots[library], rel), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, KeyError):
            return []
        functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

        def methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef]:
            return {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}

        def submodules(cls: ast.ClassDef) -> dict[str, str]:
            init = methods(cls).get("__init__")
            out = {}
            for n in ast.walk(init) if init else ():
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name):
                    for t in n.targets:
                        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                            out[t.attr] = n.value.func.id
            return out

        owner = next((c for c in classes.values() if c.lineno <= span[0] <= (c.end_lineno or 0)), None)
        fn = next((f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                   and f.lineno <= span[0] <= (f.end_lineno or 0) and (f.end_lineno or 0) >= span[1]), None)
        out: list[tuple[int, int]] = []
        work = [(fn, owner, span, 0)] if fn else []
        seen: set[int] = set()
        while work:
            node, cls, (lo, hi), depth = work.pop()
            for call in ast.walk(node):
                if not isinstance(call, ast.Call) or not lo <= call.lineno <= hi or depth >= 3:
                    continue
                f, callee, callee_cls = call.func, None, cls
                if isinstance(f, ast.Name) and f.id in functions:
                    callee, callee_cls = functions[f.id], None
                elif isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self" and cls:
                    built = submodules(cls).get(f.attr)
                    if f.attr in methods(cls):
                        callee = methods(cls)[f.attr]
                    elif built in classes and "forward" in methods(classes[built]):
                        callee, callee_cls = methods(classes[built])["forward"], classes[built]
                if callee is not None and id(callee) not in seen:
                    seen.add(id(callee))
                    out.append((callee.lineno, callee.end_lineno or callee.lineno))
                    work.append((callee, callee_cls, (callee.lineno, callee.end_lineno or callee.lineno), depth + 1))
        return out

    def frame(self, library: str, rel: str, first_line: int) -> tuple[int, int] | None:
        """The function whose code object starts at `first_line` (its decorators or its def)."""
        for start, def_line, end in self.spans(library, rel):
            if first_line in (start, def_line):
                return start, end
        return None


def score(events_path: str, cache: str) -> dict:
    models, events = load(events_path)
    libraries: dict[str, dict] = {}
    coverage: dict[tuple[str, str], set[int]] = defaultdict(set)  # every line that ran, construction included
    ran_forward: dict[tuple[str, str], set[int]] = defaultdict(set)  # what the input sets ran: what is compiled
    first_set: dict[tuple[str, str], set[int]] = defaultdict(set)  # what trace and export ran (input set 0)
    unchecked: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)  # TorchScript's stubbed methods
    # A check that stopped on its own error (Dynamo raising, export failing, trace failing) did not look at the
    # rest of that model: its lines are checked by that target only through other models.
    stopped = defaultdict(set)
    for e in events:
        if e["kind"] in ("dynamo_error",):
            stopped[e["model"]] |= {"dynamo", "recompile"}
        elif e["kind"] in ("export_error", "trace_error"):
            stopped[e["model"]].add(e["target"])
        elif e["kind"] == "target_failed":
            stopped[e["model"]] |= set(TARGETS)
    checked: dict[str, dict[tuple[str, str], set[int]]] = {t: defaultdict(set) for t in TARGETS}
    skipped: dict[str, dict[tuple[str, str], set[int]]] = defaultdict(dict)
    # TorchScript compiles what a class reaches, whether it ran or not, and stops at its first error: a line
    # is checked by it when it ran in a model whose own class scripted with no error, or lies in a class that did.
    script_clean: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    script_ok: dict[tuple[str, str], set[int]] = defaultdict(set)  # what models that script whole ran
    for m in models:
        for rel, first, last in m.get("script_unchecked", []):
            unchecked[(m["library"], rel)].append((first, last))
        lib = libraries.setdefault(m["library"], {"package": m["package"], "version": m["versions"][m["library"]],
                                                  "models": 0})
        lib["models"] += 1
        for rel, ranges in m["coverage"].items():
            coverage[(m["library"], rel)] |= _lines(ranges)
        for rel, ranges in m.get("coverage_forward", m["coverage"]).items():
            ran_forward[(m["library"], rel)] |= _lines(ranges)
        for rel, ranges in m.get("coverage_first_set", {}).items():
            first_set[(m["library"], rel)] |= _lines(ranges)
        for rel, first, last in m.get("script_clean", []):
            script_clean[(m["library"], rel)].append((first, last))
        if not m.get("script_root_ok"):
            stopped[m["model"]].add("torchscript")
        else:
            for rel, ranges in m.get("coverage_forward", m["coverage"]).items():
                script_ok[(m["library"], rel)] |= _lines(ranges)
        for t in ("torchscript", "trace", "export"):  # Dynamo's checked lines are known once frames are read
            if t not in stopped[m["model"]]:
                for rel, ranges in m.get("coverage_first_set" if t in ("trace", "export") else "coverage_forward",
                                         m.get("coverage", {})).items():
                    checked[t][(m["library"], rel)] |= _lines(ranges)
    roots = {name: source_root(name, lib["package"], lib["version"], cache) for name, lib in libraries.items()}
    frames = Frames(roots)
    # A frame Dynamo skipped whole (a break in a loop, GB7000) runs eagerly: its lines were not traced for that
    # model, so a Dynamo claim there is checked only through other models.
    for e in events:
        if e["kind"] == "frame_skipped" and e["file"] and e["library"] in roots:
            spans = [(a, b) for a, _, b in frames.spans(e["library"], e["file"]) if a <= e["line"] <= b]
            if spans:
                a, b = max(spans)
                model_cov = skipped[e["model"]].setdefault((e["library"], e["file"]), set())
                model_cov.update(range(a, b + 1))
    for m in models:
        for t in ("dynamo", "recompile"):
            if t in stopped[m["model"]]:
                continue
            for rel, ranges in m.get("coverage_forward", m.get("coverage", {})).items():
                key = (m["library"], rel)
                checked[t][key] |= _lines(ranges) - skipped[m["model"]].get(key, set())
    claims: list[dict] = []
    lines_linted: dict[str, int] = {}
    for name in libraries:
        files = {rel for (lib, rel) in coverage if lib == name and os.path.isfile(os.path.join(roots[name], rel))}
        # with the packages' __init__.py files, whose re-exports (`from ._x import f`) name what the others import
        for rel in list(files):
            parent = os.path.dirname(rel)
            while parent and not os.path.isabs(parent):
                init = os.path.join(parent, "__init__.py")
                if os.path.isfile(os.path.join(roots[name], init)):
                    files.add(init)
                parent = os.path.dirname(parent)
        files = sorted(files)
        lines_linted[name] = sum(sum(1 for _ in open(os.path.join(roots[name], f), encoding="utf-8")) for f in files)
        for c in claims_from_sarif(lint_sarif(roots[name], files), files):
            c["library"] = name
            claims.append(c)

    def ran(c: dict, target: str, lines: dict | None = None) -> bool:
        # torch.jit.trace and torch.export run the first input set only: a line only other sets reach is
        # not exercised by them
        if lines is None:
            lines = first_set if target in ("trace", "export") else ran_forward
        cov = lines.get((c["library"], c["file"]), set())
        return any(n in cov for n in range(c["line"], c["end_line"] + 1))

    # Event sites: (target, library, file, line); recompiles by frame (start, end).
    sites: dict[str, dict[tuple, dict]] = {t: {} for t in TARGETS}
    unscorable: dict[str, Counter] = {t: Counter() for t in TARGETS}
    for e in events:
        t = e["target"]
        if t not in sites:
            continue
        if not e["scorable"]:
            unscorable[t][e["why_not"]] += 1
        if e["why_not"] not in CONFIRMING_REASONS or not e["file"]:
            continue
        if t == "recompile":
            span = (frames.resumed(e["library"], e["file"], e["line"]) if e["function"].startswith(RESUMED)
                    else frames.frame(e["library"], e["file"], e["line"]))
            key = (e["library"], e["file"], span or (e["line"], e["line"]))
        else:
            key = (e["library"], e["file"], e["line"])
        site = sites[t].setdefault(key, {"scorable": False, "gb_ids": set(), "models": set(), "guard_lines": set(),
                                         "inlined": frames.inlined(e["library"], e["file"], key[2])
                                         if t == "recompile" else []})
        site["scorable"] |= e["scorable"]
        site["gb_ids"].update(e.get("gb_ids") or [])
        site["models"].add(e["model"])
        site["guard_lines"].update((f, n) for f, n in e.get("guard_lines", []))

    def matches(t: str, c: dict, key: tuple) -> bool:
        lib, rel, where = key
        if lib != c["library"]:
            return False
        if t == "recompile":
            # the frame or what it inlines (same file), or a line a failed guard came from (in any file)
            return (rel == c["file"] and any(a <= c["line"] <= b for a, b in [where, *sites[t][key]["inlined"]])) or any(
                f == c["file"] and c["line"] <= n <= c["end_line"] for f, n in sites[t][key]["guard_lines"])
        return rel == c["file"] and c["line"] <= where <= c["end_line"]

    table: dict[str, dict] = {}
    for t in TARGETS:
        mine = [c for c in claims if t in c["targets"]]
        claim_sites: dict[tuple, dict] = {}
        for c in mine:
            claim_sites.setdefault((c["library"], c["file"], c["line"]), c)
        ran_sites = [c for c in claim_sites.values() if ran(c, t)]
        right = [c for c in ran_sites if any(matches(t, c, k) for k in sites[t])]
        # Where torch stopped checking before the line (TorchScript at an earlier error of the method or class,
        # Dynamo/export/trace at an error of every model that ran it), a claim is neither right nor wrong.
        masked = [c for c in ran_sites if c not in right and (
            (t == "torchscript" and (any(a <= c["line"] <= b for a, b in unchecked.get((c["library"], c["file"]), ()))
                                     or not (ran(c, t, checked[t]) or any(a <= c["line"] <= b for a, b in
                                             script_clean.get((c["library"], c["file"]), ())))))
            or (t != "torchscript" and not ran(c, t, checked[t])))]
        exercised = [c for c in ran_sites if c not in masked]
        gb_agree = sum(1 for c in right if t == "dynamo" and c["gb_id"] and
                       any(matches(t, c, k) and c["gb_id"] in sites[t][k]["gb_ids"] for k in sites[t]))
        scorable = {k: s for k, s in sites[t].items() if s["scorable"]}
        found = [k for k in scorable if any(matches(t, c, k) for c in mine)]
        table[t] = {
            "events": sum(1 for e in events if e["target"] == t),
            "scorable_sites": len(scorable), "found": len(found),
            "recall": round(len(found) / len(scorable), 3) if scorable else None,
            "claim_sites": len(claim_sites), "exercised": len(exercised), "right": len(right),
            "precision": round(len(right) / len(exercised), 3) if exercised else None,
            "not_exercised": len(claim_sites) - len(ran_sites), "masked": len(masked),
            "unscorable": dict(unscorable[t].most_common()),
            "by_rule": {rule: {"right": sum(1 for c in right if c["rule"] == rule),
                               "wrong": sum(1 for c in exercised if c["rule"] == rule and c not in right)}
                        for rule in sorted({c["rule"] for c in exercised})},
            "wrong": sorted(f"{c['library']}:{c['file']}:{c['line']} {c['rule']}" for c in exercised if c not in right),
            "missed": sorted(f"{k[0]}:{k[1]}:{k[2] if t != 'recompile' else k[2][0]}" for k in scorable if k not in found),
        }
        if t == "dynamo":
            table[t]["gb_id_agrees"] = gb_agree
        if t == "torchscript":
            # The acceptance test of the TorchScript rules: no claim on a line that real torch.jit.script compiled
            # without an error, in a class that scripted clean (its lines that ran) or a model whose own class
            # did (every line its run reached). A claim there that another model's scripting rejects (the
            # class built otherwise) is listed apart: it is right for that model.
            accepted = [c for c in ran_sites if (ran(c, t, script_ok) or any(
                a <= c["line"] <= b for a, b in script_clean.get((c["library"], c["file"]), ())))]
            table[t]["on_scriptable"] = sorted(f"{c['library']}:{c['file']}:{c['line']} {c['rule']}"
                                               for c in accepted if c not in right)
            table[t]["on_scriptable_rejected_elsewhere"] = sorted(
                f"{c['library']}:{c['file']}:{c['line']} {c['rule']}" for c in accepted if c in right)
    per_library = {}
    for name, lib in libraries.items():
        n = sum(1 for c in claims if c["library"] == name)
        per_library[name] = {"models": lib["models"], "version": lib["version"], "files": len(
            [1 for (library, _) in coverage if library == name]), "lines": lines_linted[name], "findings": n,
            "per_kloc": round(1000 * n / lines_linted[name], 1) if lines_linted[name] else None}
    return {"models": len(models), "libraries": per_library, "targets": table,
            "torch": sorted({m.get("torch") or "?" for m in models})}


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


def render(result: dict) -> str:
    out = [f"{result['models']} models from {len(result['libraries'])} libraries, torch {', '.join(result['torch'])}",
           "",
           "| target | events | scorable sites | found | recall | claim sites | on lines that ran | masked | right | precision |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t, row in result["targets"].items():
        out.append(f"| {t} | {row['events']} | {row['scorable_sites']} | {row['found']} | {_fmt(row['recall'])} | "
                   f"{row['claim_sites']} | {row['exercised'] + row['masked']} | {row['masked']} | {row['right']} | "
                   f"{_fmt(row['precision'])} |")
    ts = result["targets"].get("torchscript", {})
    if "on_scriptable" in ts:
        out += ["", f"TorchScript findings on lines real torch.jit.script compiled clean: {len(ts['on_scriptable'])}"
                    + "".join(f"\n- {site}" for site in ts["on_scriptable"])
                    + (f" (and {len(ts['on_scriptable_rejected_elsewhere'])} where torch fails otherwise: another "
                       "model's scripting, or the scripted class called)" if ts["on_scriptable_rejected_elsewhere"]
                       else "")]
    out += ["", "| library | version | models | files linted | lines | findings | per 1,000 lines |",
            "|---|---|---:|---:|---:|---:|---:|"]
    for name, lib in sorted(result["libraries"].items()):
        out.append(f"| {name} | {lib['version']} | {lib['models']} | {lib['files']} | {lib['lines']} | "
                   f"{lib['findings']} | {lib['per_kloc']} |")
    out += ["", "Unscorable events, by reason:"]
    for t, row in result["targets"].items():
        for reason, n in row["unscorable"].items():
            out.append(f"- {t}: {n} x {reason}")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", default=EVENTS)
    parser.add_argument("--sources", default=SOURCES, help="where fetched library wheels are unpacked")
    parser.add_argument("--json", help="also write the figures (with every wrong and missed site) here")
    parser.add_argument("--write-floor", action="store_true",
                        help=f"record these figures as the floor CI holds them to ({os.path.relpath(FLOOR)})")
    ns = parser.parse_args(argv)
    result = score(ns.events, ns.sources)
    sys.stdout.write(render(result))
    if ns.write_floor:
        floor = {t: {"precision": row["precision"], "recall": row["recall"]} for t, row in result["targets"].items()}
        with open(FLOOR, "w", encoding="utf-8") as fh:
            json.dump(floor, fh, indent=1, sort_keys=True)
            fh.write("\n")
    if ns.json:
        with open(ns.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
