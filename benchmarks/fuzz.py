"""The long fuzz run: lint N generated or mutated sources and count what went wrong.

    python benchmarks/fuzz.py --cases 10000 --seed 1                       # in-process
    python benchmarks/fuzz.py --cases 10000 --seed 1 --mode subprocess     # the real CLI, with a watchdog

Sources: hypothesmith (syntactically valid Python from the grammar) and byte-level mutations
(truncation, bit flips, NUL bytes, random inserts/deletes, BOM, CRLF/CR line ends, latin-1 bytes)
of the bundled fixtures and of this package's own files.

In-process mode calls `analyze_source`: a crash is any exception escaping it, or a finding with an
impossible position. It cannot see what kills or stalls the process itself, so the generators of such
inputs run only in subprocess mode.

Subprocess mode writes the cases into folders (a batch each) and lints every folder with the real CLI
(`python -m compilelint DIR --output-format json`, alternately -j1 and -j2) in a subprocess under a
watchdog. On top of the sources above it generates deep nesting (brackets, calls, f-strings, lambdas,
comprehensions, blocks), long chains (every binary operator, attributes, subscripts, calls, unary
operators, conditional expressions, comparisons) at sizes around the parse guard's limits and far
beyond, mixed tab/space indentation, and puts a FIFO named *.py in every batch. It counts:
- crashes: a CLI killed by a signal, an exit status other than 0/1, output that is not the JSON report;
- hangs: runs the watchdog had to kill;
- tracebacks: "Traceback" anywhere in stdout or stderr;
- wrong verdicts: a FIFO not reported as E003, a case beyond the limits not reported as E005 (or E001
  where the case is also not valid Python), a case with indentation that Python accepts reported as E001;
and, as information, the engine findings per code (E002 timeouts, E005 guarded, E006 workers lost).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from compilelint.parse_guard import LIBCST_MAX_STRING_PIECES, MAX_BRACKET_DEPTH, MAX_EXPRESSION_DEPTH  # noqa: E402

# Before Python 3.12 the tokenize module sees f'{f'{...}'}' (quotes nested as only 3.12 allows) as half as many
# brackets as LibCST parses (parse_guard's docstring): such cases are guarded from twice the bracket limit on.
FSTRING_GUARD = MAX_BRACKET_DEPTH if sys.version_info >= (3, 12) else 2 * MAX_BRACKET_DEPTH + 1


def corpus(max_bytes: int = 0) -> list[bytes]:
    paths = sorted(glob.glob(os.path.join(ROOT, "fixtures", "**", "*.py"), recursive=True))
    paths += sorted(glob.glob(os.path.join(ROOT, "compilelint", "**", "*.py"), recursive=True))[:40]
    sources = [open(p, "rb").read() for p in paths]
    return [s for s in sources if len(s) <= max_bytes] if max_bytes else sources


def mutate(rng: random.Random, source: bytes) -> bytes:
    data = bytearray(source)
    for _ in range(rng.randint(1, 4)):
        op = rng.choice(["truncate", "flip", "nul", "insert", "delete", "bom", "crlf", "cr", "latin1", "tabs"])
        pos = rng.randint(0, len(data))
        if op == "truncate":
            data = data[:pos]
        elif op == "flip" and pos < len(data):
            data[pos] ^= 1 << rng.randint(0, 7)
        elif op == "nul":
            data[pos:pos] = b"\0"
        elif op == "insert":
            data[pos:pos] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 8)))
        elif op == "delete":
            del data[pos:pos + rng.randint(1, 40)]
        elif op == "bom":
            data[0:0] = b"\xef\xbb\xbf"
        elif op == "crlf":
            data = bytearray(bytes(data).replace(b"\n", b"\r\n"))
        elif op == "cr":
            data = bytearray(bytes(data).replace(b"\n", b"\r"))
        elif op == "latin1":
            data[pos:pos] = b"\xe9\xff"
        elif op == "tabs":
            data = bytearray(bytes(data).replace(b"    ", b"\t", rng.randint(1, 5)))
    return bytes(data)


def hypothesmith_sources(count: int, seed: int) -> list[str]:
    if count <= 0:
        return []
    import hypothesmith
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    pool: list[str] = []

    @hypothesis_seed(seed)  # the same cases for the same --seed, so a reported batch can be run again
    @settings(max_examples=count, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(hypothesmith.from_grammar())
    def collect(src: str) -> None:
        pool.append(src)

    collect()
    return pool


# --- generators of inputs that stress the native parser ------------------------------------------------------

# name -> (function of n -> expression text, what n counts: "brackets" (nesting depth) or "depth")
NESTINGS = {
    "parens": (lambda n: "(" * n + "a" + ")" * n, "brackets"),
    "lists": (lambda n: "[" * n + "a" + "]" * n, "brackets"),
    "dicts": (lambda n: "{'k': " * n + "a" + "}" * n, "brackets"),
    "tuples": (lambda n: "(" * n + "a" + ",)" * n, "brackets"),
    "calls": (lambda n: "f(" * n + "a" + ")" * n, "brackets"),
    "subscript-in-subscript": (lambda n: "a[" * n + "0" + "]" * n, "brackets"),
    "comprehensions": (lambda n: "[" * n + "a" + " for a in b]" * n, "brackets"),
    "fstrings": (lambda n: "f'{" * n + "a" + "}'" * n, "fstring-brackets"),
    "lambdas": (lambda n: "lambda: " * n + "a", "depth"),
    "unary-minus": (lambda n: "-" * n + "a", "depth"),
    "unary-invert": (lambda n: "~" * n + "a", "depth"),
    "not": (lambda n: "not " * n + "a", "depth"),
    "ternary": (lambda n: "a if b else " * n + "c", "depth"),
    "await": (lambda n: "await " * n + "a", "depth"),
}
BINARY = ["+", "-", "*", "/", "//", "%", "@", "<<", ">>", "&", "|", "^", "**"]
CHAINS = {
    **{f"binary{op}": ((lambda op: lambda n: f" {op} ".join(["a"] * (n + 1)))(op), "depth") for op in BINARY},
    "mixed-binary": (None, "depth"),  # random operators: built with the rng
    "attributes": (lambda n: "a" + ".b" * n, "depth"),
    "subscripts": (lambda n: "a" + "[0]" * n, "depth"),
    "call-chain": (lambda n: "a" + "()" * n, "depth"),
    "trailers": (lambda n: "a" + "".join((".b", "[0]", "(c)")[i % 3] for i in range(n)), "depth"),
    "comparisons": (lambda n: " < ".join(["a"] * (n + 1)), "flat"),
    "booleans": (lambda n: " and ".join(["a"] * (n + 1)), "depth"),  # nested in LibCST's tree
    "strings": (lambda n: " ".join(["'s'"] * (n + 1)), "pieces"),
}


def _size(rng: random.Random, measure: str) -> int:
    limit = {"brackets": MAX_BRACKET_DEPTH, "fstring-brackets": FSTRING_GUARD,
             "pieces": LIBCST_MAX_STRING_PIECES}.get(measure, MAX_EXPRESSION_DEPTH)
    bucket = rng.random()
    if bucket < 0.35:
        return rng.randint(1, limit // 2)
    if bucket < 0.65:
        return rng.randint(limit - limit // 20, limit + limit // 20)  # around the limit
    if bucket < 0.9:
        return rng.randint(limit + 1, limit * 6)
    return rng.randint(limit * 10, 100_000)


@dataclass
class Case:
    name: str
    kind: str
    source: bytes
    # "E005": beyond the limits (E005, or E001 where Python rejects it for another reason too); "clean": valid
    # and within the limits, so no engine finding at all; "not-E001": Python accepts its indentation
    expect: str = ""


def deep_case(rng: random.Random, index: int) -> Case:
    kinds = {**NESTINGS, **CHAINS}
    kind = rng.choice(sorted(kinds))
    build, measure = kinds[kind]
    n = _size(rng, measure)
    if kind == "mixed-binary":
        expression = "a" + "".join(f" {rng.choice(BINARY)} a" for _ in range(n))
    else:
        expression = build(n)
    where = rng.choice(["module", "forward", "async"])
    if where == "module" and kind != "await":
        text = f"import torch\nx = {expression}\n"
    elif where == "forward" and kind != "await":
        text = (f"import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b, c, f):\n"
                f"        x = {expression}\n        return x\n")
    else:
        text = f"async def g(a, b, c, f):\n    return {expression}\n"
    source = text.encode()
    # n operators over n + 1 operands nest n + 1 levels; mixed precedence nests less, so it has no verdict
    over = {"brackets": n > MAX_BRACKET_DEPTH, "fstring-brackets": n > FSTRING_GUARD, "flat": False,
            "pieces": n + 1 > LIBCST_MAX_STRING_PIECES}.get(measure, n + 1 > MAX_EXPRESSION_DEPTH)
    if kind == "mixed-binary" or (measure == "fstring-brackets" and MAX_BRACKET_DEPTH < n <= FSTRING_GUARD):
        expect = ""
    elif over:
        expect = "E005"
    else:
        expect = "clean" if _valid(source) else ""
    if rng.random() < 0.1:  # broken as well: Python's parser fails, the token check must stand in
        source = source[:rng.randint(0, len(source))]
        expect = "E005" if expect == "E005" and measure == "brackets" and _still_nested(source) else ""
    name = "".join(ch if ch.isalnum() or ch == "-" else f"x{ord(ch):02x}" for ch in kind)
    return Case(f"case{index:05d}_{name}_{n}", kind, source, expect)


def _valid(source: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "case.py", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _still_nested(source: bytes) -> bool:
    depth = deepest = 0
    for byte in source:
        depth += (byte in b"([{") - (byte in b")]}")
        deepest = max(deepest, depth)
    return deepest > MAX_BRACKET_DEPTH


def tabs_case(rng: random.Random, index: int) -> Case:
    """Nested blocks indented by random runs of tabs and spaces; what Python accepts must not be E001."""
    units = ["\t", " ", "  ", "    ", "        "]
    lines = ["import torch", "def f(x):"]
    indent = "".join(rng.choice(units) for _ in range(rng.randint(1, 2)))
    for _ in range(rng.randint(2, 6)):
        lines.append(indent + rng.choice(["if x.sum() > 0:", "for _ in range(2):", "while x.any():"]))
        indent += "".join(rng.choice(units) for _ in range(rng.randint(1, 2)))
        lines.append(indent + rng.choice(["y = x.item()", "x = x + 1", "pass"]))
    if rng.random() < 0.5:
        lines.append("".join(rng.choice(units) for _ in range(rng.randint(1, 3))) + "return x")
    source = ("\n".join(lines) + "\n").encode()
    expect = "not-E001" if _valid(source) else ""
    return Case(f"case{index:05d}_tabs", "tabs", source, expect)


# --- the two modes -------------------------------------------------------------------------------------------

def run_in_process(args: argparse.Namespace) -> None:
    from compilelint.analyzer import analyze_source
    from compilelint.rules.registry import all_rules

    rng = random.Random(args.seed)
    rules = [r() for r in all_rules().values()]
    sources = corpus()
    generated = hypothesmith_sources(int(args.cases * args.generated_share), args.seed)
    crashes, parse_errors, findings = 0, 0, 0
    start = time.time()
    for i in range(args.cases):
        if i < len(generated):
            source = generated[i].encode("utf-8", "surrogatepass")
        else:
            source = mutate(rng, rng.choice(sources))
        try:
            result = analyze_source(f"case{i}.py", source, rules, f"case{i}", False)
            for f, _, _ in result.findings:
                assert f.line >= 1 and f.col >= 0 and f.end_line >= f.line, f
            parse_errors += result.summary is None
            findings += len(result.findings)
        except Exception:
            crashes += 1
            print(f"CRASH on case {i}:\n{traceback.format_exc()}")
    print(f"{args.cases} cases ({len(generated)} generated, {args.cases - len(generated)} mutated) "
          f"in {time.time() - start:.0f}s: {crashes} crashes, {parse_errors} parse errors, {findings} findings")


def make_cases(args: argparse.Namespace) -> list[Case]:
    rng = random.Random(args.seed)
    sources = corpus(args.max_source_bytes)
    generated = hypothesmith_sources(int(args.cases * args.generated_share), args.seed)
    cases: list[Case] = []
    for i in range(args.cases):
        draw = rng.random()
        if i < len(generated):
            cases.append(Case(f"case{i:05d}_grammar", "grammar", generated[i].encode("utf-8", "surrogatepass")))
        elif draw < args.deep_share:
            cases.append(deep_case(rng, i))
        elif draw < args.deep_share + args.tabs_share:
            cases.append(tabs_case(rng, i))
        else:
            cases.append(Case(f"case{i:05d}_mutated", "mutated", mutate(rng, rng.choice(sources))))
    rng.shuffle(cases)  # grammar cases spread over the batches, not all in the first
    return cases


def lint_batch(folder: str, jobs: int, args: argparse.Namespace) -> tuple[str, int | None, str, str, float]:
    """(status, exit code, stdout, stderr, seconds): status is "ok" or "hang"."""
    command = [sys.executable, "-m", "compilelint", folder, "--output-format", "json", "--no-cache", "--isolated",
               "-j", str(jobs), "--file-timeout", str(args.file_timeout)]
    start = time.monotonic()
    env = {**os.environ, "COMPILELINT_DEBUG": "1"} if args.debug else None  # internal errors with a traceback
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            cwd=folder, env=env)
    try:
        out, err = proc.communicate(timeout=args.watchdog)
        return "ok", proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), \
            time.monotonic() - start
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and its workers
        out, err = proc.communicate()
        return "hang", None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.monotonic() - start


def run_subprocesses(args: argparse.Namespace) -> int:
    start = time.time()
    cases = make_cases(args)
    made = time.time() - start
    counts: Counter[str] = Counter()
    engine: Counter[str] = Counter()
    kinds = Counter(c.kind for c in cases)
    problems: list[str] = []
    work = tempfile.mkdtemp(prefix="compilelint-fuzz-")
    slowest = 0.0
    try:
        for batch_index, first in enumerate(range(0, len(cases), args.batch)):
            if args.batches and batch_index not in args.batches:
                continue
            batch = cases[first:first + args.batch]
            folder = os.path.join(work, f"batch{batch_index:04d}")
            os.makedirs(folder)
            for case in batch:
                with open(os.path.join(folder, case.name + ".py"), "wb") as fh:
                    fh.write(case.source)
            fifo = os.path.join(folder, "zz_fifo.py")
            if hasattr(os, "mkfifo"):
                os.mkfifo(fifo)
            jobs = 1 + batch_index % 2
            status, code, out, err, took = lint_batch(folder, jobs, args)
            slowest = max(slowest, took)
            label = f"batch {batch_index} (-j{jobs}, cases {batch[0].name}..)"
            if status == "hang":
                counts["hangs"] += 1
                problems.append(f"HANG: {label}: killed after {args.watchdog:g}s; {err[-400:]}")
                if args.keep:
                    continue
                shutil.rmtree(folder)
                continue
            if "Traceback" in out or "Traceback" in err:
                counts["tracebacks"] += 1
                problems.append(f"TRACEBACK: {label}:\n{err[-2000:]}")
            try:
                report = json.loads(out)
            except ValueError:
                report = None
            if code is None or code < 0 or code not in (0, 1) or report is None:
                counts["crashes"] += 1
                problems.append(f"CRASH: {label}: exit {code}; {err[-800:]}")
                continue
            codes: dict[str, set[str]] = {}
            for finding in report["findings"]:
                codes.setdefault(os.path.basename(finding["path"])[:-3], set()).add(finding["code"])
                if finding["code"].startswith("E0"):
                    engine[finding["code"]] += 1
            if hasattr(os, "mkfifo") and codes.get("zz_fifo") != {"E003"}:
                counts["wrong verdicts"] += 1
                problems.append(f"WRONG: {label}: the FIFO got {codes.get('zz_fifo')}")
            for case in batch:
                got = codes.get(case.name, set())
                if case.expect == "E005" and not got & {"E005", "E001"}:
                    counts["wrong verdicts"] += 1
                    problems.append(f"WRONG: {label}: {case.name} beyond the limits, got {sorted(got)}")
                elif case.expect == "clean" and {c for c in got if c.startswith("E0")}:
                    counts["wrong verdicts"] += 1
                    problems.append(f"WRONG: {label}: {case.name} is valid and within the limits, got {sorted(got)}")
                elif case.expect == "not-E001" and "E001" in got:
                    counts["wrong verdicts"] += 1
                    problems.append(f"WRONG: {label}: {case.name} is valid Python, got E001")
            if not args.keep:
                shutil.rmtree(folder)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for problem in problems:
        print(problem)
    batches = (len(cases) + args.batch - 1) // args.batch
    print(f"{len(cases)} cases in {batches} CLI runs of up to {args.batch} (alternately -j1 and -j2; "
          f"watchdog {args.watchdog:g}s, --file-timeout {args.file_timeout:g}) in {time.time() - start:.0f}s "
          f"({made:.0f}s generating; slowest run {slowest:.1f}s)")
    print("cases: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))
    print(f"crashes {counts['crashes']}, hangs {counts['hangs']}, tracebacks {counts['tracebacks']}, "
          f"wrong verdicts {counts['wrong verdicts']}")
    print("engine findings: " + (", ".join(f"{k} {v}" for k, v in sorted(engine.items())) or "none"))
    if args.keep:
        print(f"cases kept in {work}")
    return 1 if counts["crashes"] or counts["hangs"] or counts["tracebacks"] or counts["wrong verdicts"] else 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mode", choices=["inprocess", "subprocess"], default="inprocess")
    parser.add_argument("--generated-share", type=float, default=None,
                        help="share of hypothesmith cases (default: 0.2 in-process, 0.05 in subprocess mode)")
    parser.add_argument("--deep-share", type=float, default=0.2, help="subprocess mode: nesting and chains")
    parser.add_argument("--tabs-share", type=float, default=0.05, help="subprocess mode: mixed indentation")
    parser.add_argument("--batch", type=int, default=200, help="subprocess mode: cases per CLI run")
    parser.add_argument("--watchdog", type=float, default=600, help="subprocess mode: seconds per CLI run")
    parser.add_argument("--file-timeout", type=float, default=20, help="subprocess mode: the CLI's --file-timeout")
    parser.add_argument("--keep", action="store_true", help="subprocess mode: keep the case folders")
    parser.add_argument("--batches", type=lambda text: {int(b) for b in text.split(",")}, default=set(),
                        help="subprocess mode: run only these batches (0-based, as a report names them)")
    parser.add_argument("--debug", action="store_true", help="subprocess mode: COMPILELINT_DEBUG=1 (tracebacks)")
    parser.add_argument("--max-source-bytes", type=int, default=40_000,
                        help="subprocess mode: mutate only corpus files up to this size (the run's time)")
    args = parser.parse_args()
    warnings.simplefilter("ignore", SyntaxWarning)  # Python's own remarks on generated code (hypothesmith compiles it)
    if args.generated_share is None:
        args.generated_share = 0.2 if args.mode == "inprocess" else 0.05
    if args.mode == "inprocess":
        run_in_process(args)
    else:
        sys.exit(run_subprocesses(args))


if __name__ == "__main__":
    main()
