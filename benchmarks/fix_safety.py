"""`--fix` on copies of real libraries: safe fixes change no signature and break no file.

    python benchmarks/fix_safety.py kornia monai diffusers [--unsafe-fixes] [--keep DIR]

Each package is copied from where it is installed (never imported) into a scratch folder, `compilelint --fix
--targets all` runs on the copy, and every changed file is checked against its original:
  signatures   every function's parameter list (names, kinds, defaults, order) is the one it had: only
               annotations may appear
  parses       the fixed file is valid Python (`ast.parse`)
  ruff         `ruff check --select E9,F63,F7,F82` reports nothing on the fixed files that it did not on the
               originals (skipped when ruff is not installed)
Prints one line per package and exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile


def parameter_lists(source: str) -> dict[tuple[str, int], tuple]:
    """(qualified name, line of `def`) -> the parameters without their annotations."""
    out: dict[tuple[str, int], tuple] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = child.args
                out[(prefix + child.name, child.lineno)] = (
                    tuple(p.arg for p in a.posonlyargs), tuple(p.arg for p in a.args),
                    a.vararg.arg if a.vararg else None, tuple(p.arg for p in a.kwonlyargs),
                    a.kwarg.arg if a.kwarg else None,
                    tuple(ast.dump(d) for d in a.defaults),
                    tuple(ast.dump(d) if d is not None else None for d in a.kw_defaults))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    # lines move when a fix adds or removes one; the order of definitions does not
    return {(name, i): params for i, ((name, _), params) in enumerate(sorted(out.items(), key=lambda kv: kv[0][1]))}


def ruff_findings(root: str, files: list[str]) -> set[tuple[str, str, str]] | None:
    if shutil.which("ruff") is None or not files:
        return None if shutil.which("ruff") is None else set()
    proc = subprocess.run(["ruff", "check", "--select", "E9,F63,F7,F82", "--output-format", "json", "--no-cache",
                           *files], cwd=root, capture_output=True, text=True)
    return {(r["filename"], r["code"], r["message"]) for r in json.loads(proc.stdout or "[]")}


def check_package(package: str, unsafe: bool, scratch: str) -> dict:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{package} is not installed")
    source = list(spec.submodule_search_locations)[0]
    copy = os.path.join(scratch, package)
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so"))
    originals = {}
    for folder, _, names in os.walk(copy):
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    originals[path] = fh.read()
    before_ruff = ruff_findings(scratch, sorted(os.path.relpath(p, scratch) for p in originals))
    cmd = [sys.executable, "-m", "compilelint", package, "--fix", "--targets", "all", "--no-cache", "--exit-zero",
           "--isolated", "--output-format", "concise", *(["--unsafe-fixes"] if unsafe else [])]
    proc = subprocess.run(cmd, cwd=scratch, capture_output=True, text=True)
    changed, signature_changes, not_parsing = [], [], []
    for path, text in originals.items():
        with open(path, encoding="utf-8", errors="replace") as fh:
            new = fh.read()
        if new == text:
            continue
        changed.append(os.path.relpath(path, scratch))
        try:
            after = parameter_lists(new)
        except SyntaxError as exc:
            not_parsing.append(f"{os.path.relpath(path, scratch)}: {exc}")
            continue
        before = parameter_lists(text)
        signature_changes += [f"{os.path.relpath(path, scratch)}: {key[0]}" for key in before
                              if before[key] != after.get(key)]
    after_ruff = ruff_findings(scratch, changed)
    new_ruff = None
    if after_ruff is not None and before_ruff is not None:
        new_ruff = sorted(after_ruff - before_ruff)
    fixed = next((ln for ln in proc.stderr.splitlines() if ln.startswith("Fixed ")), "Fixed 0 findings")
    return {"package": package, "files": len(originals), "changed": len(changed), "fixed": fixed,
            "signature_changes": signature_changes, "not_parsing": not_parsing, "new_ruff": new_ruff,
            "exit": proc.returncode}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--unsafe-fixes", action="store_true")
    ap.add_argument("--keep", help="leave the fixed copies in this folder")
    args = ap.parse_args()
    scratch = args.keep or tempfile.mkdtemp(prefix="compilelint-fix-")
    os.makedirs(scratch, exist_ok=True)
    failed = False
    try:
        for package in args.packages:
            r = check_package(package, args.unsafe_fixes, scratch)
            ruff = "ruff not installed" if r["new_ruff"] is None else f"{len(r['new_ruff'])} new ruff findings"
            print(f"{package}: {r['files']} files, {r['changed']} changed ({r['fixed']}); "
                  f"{len(r['signature_changes'])} parameter lists changed, {len(r['not_parsing'])} files not "
                  f"parsing, {ruff}")
            for line in r["signature_changes"][:20] + r["not_parsing"][:20] + [str(x) for x in (r["new_ruff"] or [])][:20]:
                print("   ", line)
            failed |= bool(r["signature_changes"] or r["not_parsing"] or r["new_ruff"] or r["exit"] not in (0, 1))
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
