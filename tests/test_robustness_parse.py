"""Inputs that take LibCST's native parser down must not take the run down (issue #31).

The parse guard (compilelint/parse_guard.py) reports what the native parser must not see (E005), the worker
supervisor (compilelint/supervisor.py) survives what gets through anyway: a worker that dies is E006, one that
overruns the hard deadline is killed and its file E002, and every other file is still checked. Non-regular
files are E003 without being opened for a blocking read; valid mixed tab/space indentation is not E001.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import libcst as cst
import pytest

from compilelint import analyzer, parse_guard, supervisor
from compilelint.analyzer import analyze_source
from compilelint.config import Config
from compilelint.engine import lint
from compilelint.rules.registry import all_rules

GOOD = textwrap.dedent('''
    import torch
    class Head(torch.nn.Module):
        def forward(self, x):
            return x * x.max().item()
''')
GOOD_LINE = 5  # the GB401 finding's line in GOOD
RULES = [rule() for rule in all_rules().values()]
DEPTH = parse_guard.MAX_EXPRESSION_DEPTH

# What crashed or stalled LibCST 1.9 (measured: parse_guard's docstring), each far beyond the limits.
PATHOLOGICAL = {
    "parens-5000": "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",
    "calls-3000": "x = " + "f(" * 3000 + "1" + ")" * 3000 + "\n",
    "lists-1300": "x = " + "[" * 1300 + "]" * 1300 + "\n",
    "plus-5000": "x = " + " + ".join(["a"] * 5000) + "\n",
    "plus-100k": "x = " + " + ".join(["a"] * 100_000) + "\n",
    "subscripts-3000": "x = a" + "[0]" * 3000 + "\n",
    "attributes-2000": "x = a" + ".b" * 2000 + "\n",
    "calls-chained-2000": "x = a" + "()" * 2000 + "\n",
    "unary-2500": "x = " + "-" * 2500 + "a\n",
    "ternary-2000": "x = " + "a if b else " * 2000 + "c\n",
    "lambda-1500": "x = " + "lambda: " * 1500 + "1\n",
    "power-2000": "x = " + " ** ".join(["a"] * 2000) + "\n",
    "fstrings-1000": "x = " + "f'{" * 1000 + "1" + "}'" * 1000 + "\n",
    "adjacent-strings-5000": "x = " + " ".join(["'s'"] * 5000) + "\n",
}


def run_cli(*args: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compilelint", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def by_file(stdout: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in json.loads(stdout)["findings"]:
        out.setdefault(os.path.basename(f["path"]), set()).update(f.get("codes") or [f["code"]])
    return out


# --- the parse guard -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_input_is_e005_before_the_parser_sees_it(name, monkeypatch):
    def no_native_parse(source):  # noqa: ANN001, ANN202
        raise AssertionError("LibCST was handed a file the guard must stop")

    monkeypatch.setattr(analyzer, "_parse_cst", no_native_parse)
    monkeypatch.setattr(analyzer, "_build_cst", no_native_parse)
    start = time.monotonic()
    result = analyze_source(f"{name}.py", PATHOLOGICAL[name].encode(), RULES, "m", False)
    assert time.monotonic() - start < 5
    assert result.summary is None
    assert [f.code for f, _, _ in result.findings] == ["E005"], [f.message for f, _, _ in result.findings]


def test_depth_limit_is_exact_and_real_code_is_far_below_it():
    """An expression exactly MAX_EXPRESSION_DEPTH deep is parsed and analyzed, one level more is not. Real
    code stays far below (566: the deepest in the 9,531 files of the installed packages, generated sympy)."""
    def chain(depth: int) -> bytes:  # `a + a + ... + a`: n - 1 BinOps over Names is n levels deep
        return ("x = " + " + ".join(["a"] * depth) + "\n").encode()

    assert parse_guard._expression_depth(parse_guard.parse_python(chain(DEPTH)).tree.body[0].value)[0] == DEPTH
    at_limit = analyze_source("at.py", chain(DEPTH), RULES, "at", False)
    assert at_limit.summary is not None and not at_limit.findings
    over = analyze_source("over.py", chain(DEPTH + 1), RULES, "over", False)
    assert [f.code for f, _, _ in over.findings] == ["E005"]
    assert f"{DEPTH + 1} levels deep" in over.findings[0][0].message
    # adjacent string literals: one constant to Python, a nest to LibCST, which takes 3,000 and no more
    pieces = parse_guard.LIBCST_MAX_STRING_PIECES
    assert analyze_source("s.py", ("x = " + " ".join(["'s'"] * pieces) + "\n").encode(), RULES, "s", False).summary
    too_many = analyze_source("s.py", ("x = " + " ".join(["'s'"] * (pieces + 1)) + "\n").encode(), RULES, "s", False)
    assert [f.code for f, _, _ in too_many.findings] == ["E005"]
    # a long but shallow statement (a table) is not an expression chain
    table = ("TABLE = [" + ", ".join(f"({i}, {i} * 2, 'x{i}')" for i in range(20_000)) + "]\n").encode()
    assert analyze_source("table.py", table, RULES, "table", False).summary is not None


@pytest.mark.parametrize("prefix", ["lambda: ", "a if b else ", "-"])
def test_an_expression_just_within_the_limit_is_analyzed_with_positions(prefix):
    """Findings in such a statement need its code generated, which recurses as deep as the expression (found
    by benchmarks/fuzz.py: a RecursionError escaped as an internal error)."""
    source = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b):\n        x = "
              + prefix * (DEPTH - 1) + "a\n        return x.item()\n").encode()
    result = analyze_source("deep.py", source, RULES, "deep", True)
    assert result.summary is not None
    placed = {(f.code, f.line) for f, _, _ in result.findings}
    assert placed & {("TS101", 4), ("GB401", 5)} and all(line >= 4 for _, line in placed), placed


def test_limits_sit_where_libcst_is_still_fast():
    """The guard's limits against LibCST itself: at MAX_EXPRESSION_DEPTH the slowest chain measured (a
    subscript chain) parses in about a second, 3x deeper (what CPython still accepts) in about 30."""
    import libcst

    start = time.monotonic()
    libcst.parse_module("x = a" + "[0]" * DEPTH + "\n")
    assert time.monotonic() - start < 10
    start = time.monotonic()
    libcst.parse_module("x = " + "(" * parse_guard.MAX_BRACKET_DEPTH + "1" + ")" * parse_guard.MAX_BRACKET_DEPTH)
    assert time.monotonic() - start < 5


def test_files_python_cannot_parse_get_the_token_check():
    """Where Python's parser fails for another reason (a syntax error, syntax newer than this Python), the
    same limits are read from the tokens, so such a file cannot reach LibCST with a pathological nest."""
    broken = b"print 'python 2'\n"
    deep = broken + b"x = a" + b"[0]" * 3000 + b"\n"
    assert parse_guard.parse_python(deep).tree is None
    result = analyze_source("deep.py", deep, RULES, "deep", False)
    assert [f.code for f, _, _ in result.findings] == ["E005"] and result.findings[0][0].line == 2
    nested = broken + b"y = " + b"{" * 300 + b"}" * 300 + b"\n"
    assert [f.code for f, _, _ in analyze_source("n.py", nested, RULES, "n", False).findings] == ["E005"]
    shallow = broken + b"x = a + b\n"
    assert [f.code for f, _, _ in analyze_source("s.py", shallow, RULES, "s", False).findings] == ["E001"]


# --- mixed tabs and spaces -------------------------------------------------------------------------------------

MIXED_TABS = (b"import torch\nclass M(torch.nn.Module):\n\tdef forward(self, x):\n\t      if x.sum() > 0:\n"
              b"                 y = x.item()\n\t      return x.item()\n")


def test_valid_mixed_tab_indentation_is_analyzed_not_e001():
    """Python accepts this indentation (consistent at tab sizes 8 and 1); LibCST alone rejects it."""
    import libcst

    compile(MIXED_TABS, "mixed.py", "exec")
    with pytest.raises(libcst.ParserSyntaxError):
        libcst.parse_module(MIXED_TABS)
    result = analyze_source("mixed.py", MIXED_TABS, RULES, "mixed", False)
    findings = sorted((f.code, f.line, f.col) for f, _, _ in result.findings)
    assert "E001" not in {code for code, _, _ in findings}
    # columns are the file's own: line 5 is 17 spaces + "y = ", line 6 a tab, 6 spaces and "return "
    assert ("GB401", 5, 21) in findings and ("GB401", 6, 14) in findings, findings
    assert all(f.fix is None for f, _, _ in result.findings)  # a fix's text would carry the wrong indentation


def test_inconsistent_tabs_are_still_e001_as_python_says():
    tab_error = b"if x:\n        a = 1\n\tb = 2\n"
    with pytest.raises(TabError):
        compile(tab_error, "t.py", "exec")
    assert [f.code for f, _, _ in analyze_source("t.py", tab_error, RULES, "t", False).findings] == ["E001"]


def test_reindent_keeps_strings_and_continuation_lines():
    source = b'def f():\n\tx = """\n\tinside\n"""\n\ty = (1,\n\t     2)\n\treturn x\n'
    reindented = parse_guard.reindent_tabs(source)
    assert reindented.source == b'def f():\n        x = """\n\tinside\n"""\n        y = (1,\n\t     2)\n        return x\n'
    assert reindented.shift == {2: (8, 7), 5: (8, 7), 7: (8, 7)}


# --- the supervisor --------------------------------------------------------------------------------------------

def _task_kinds(task: str) -> str:
    if task == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    if task == "hang":
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])  # as native code: no signal interrupts it
        time.sleep(60)
    if task == "exit":
        os._exit(3)
    if task == "bug":
        raise KeyError("an internal error")
    return task.upper()


@pytest.mark.parametrize("jobs", [1, 2])
def test_supervisor_replaces_dead_and_stuck_workers_and_keeps_order(jobs):
    tasks = ["a", "segfault", "b", "hang", "c", "exit", "d", "e"]
    start = time.monotonic()
    outcomes = supervisor.run_supervised(tasks, _task_kinds, jobs=jobs, deadline=1.0)
    assert time.monotonic() - start < 20
    assert [o.value for o in outcomes] == ["A", None, "B", None, "C", None, "D", "E"]
    assert outcomes[1].crashed == "SIGSEGV" and outcomes[5].crashed == "exit status 3"
    assert outcomes[3].overran >= 1.0 and not outcomes[3].crashed


def _sleep(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_supervisor_spreads_the_last_tasks_over_idle_workers():
    """No worker holds a queued task while another has none: two slow files on -j2 run side by side."""
    start = time.monotonic()
    assert [o.value for o in supervisor.run_supervised([1.5, 1.5], _sleep, jobs=2)] == [1.5, 1.5]
    assert time.monotonic() - start < 2.7  # one after the other: 3 s and more


def test_supervisor_raises_an_internal_error_like_pool_did():
    with pytest.raises(KeyError, match="an internal error") as info:
        supervisor.run_supervised(["a", "bug", "b"], _task_kinds, jobs=1)
    assert any("'bug'" in note for note in getattr(info.value, "__notes__", []))


def _segfault_on_marker(real):  # noqa: ANN001, ANN202
    def parse(source: bytes, *rest):  # noqa: ANN002, ANN202
        if b"CRASH-THE-PARSER" in source:
            os.kill(os.getpid(), signal.SIGSEGV)
        return real(source, *rest)

    return parse


def _crash_both_parses(monkeypatch) -> None:  # noqa: ANN001
    """Both ways a worker turns a file into LibCST nodes (LibCST's parser, the nodes built from Python's tree)."""
    monkeypatch.setattr(analyzer, "_parse_cst", _segfault_on_marker(analyzer._parse_cst))
    monkeypatch.setattr(analyzer, "_build_cst", _segfault_on_marker(analyzer._build_cst))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_that_kills_its_worker_is_e006_and_the_others_are_checked(tmp_path, monkeypatch, jobs):
    """A crash of the native parser that the guard did not foresee (forked workers inherit the patch)."""
    _crash_both_parses(monkeypatch)
    (tmp_path / "a_crash.py").write_text("# CRASH-THE-PARSER\nx = 1\n")
    for i in range(3):
        (tmp_path / f"good{i}.py").write_text(GOOD)
    findings = lint([str(tmp_path)], Config(root=str(tmp_path)), jobs=jobs, cache_dir=None).findings
    codes = {(Path(f.path).name, f.code) for f in findings}
    assert ("a_crash.py", "E006") in codes
    assert {("good0.py", "GB401"), ("good1.py", "GB401"), ("good2.py", "GB401")} <= codes
    crash = next(f for f in findings if f.code == "E006")
    assert "SIGSEGV" in crash.message


def test_cli_minus_j1_survives_a_segfault_with_a_report(tmp_path):
    """`-j1` used to exit 139 with no report; the parse still runs in a (single) worker process."""
    (tmp_path / "a_crash.py").write_text("# CRASH-THE-PARSER\nx = 1\n")
    (tmp_path / "good.py").write_text(GOOD)
    script = ("import sys\nfrom compilelint import analyzer\nsys.path.insert(0, %r)\n"
              "from test_robustness_parse import _segfault_on_marker\n"
              "analyzer._parse_cst = _segfault_on_marker(analyzer._parse_cst)\n"
              "analyzer._build_cst = _segfault_on_marker(analyzer._build_cst)\n"
              "from compilelint.cli import run\nsys.argv = ['compilelint'] + sys.argv[1:]\nrun()\n"
              % str(Path(__file__).parent))
    proc = subprocess.run([sys.executable, "-c", script, str(tmp_path), "-j1", "--no-cache", "--output-format", "json",
                           "--targets", "all"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert by_file(proc.stdout) == {"a_crash.py": {"E006"}, "good.py": {"GB401", "TR302"}}


# --- end to end ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("jobs", ["1", "2"])
def test_deep_nesting_next_to_a_normal_file_gives_a_report_naming_both(tmp_path, jobs):
    (tmp_path / "deep.py").write_text(PATHOLOGICAL["parens-5000"])
    (tmp_path / "calls.py").write_text(PATHOLOGICAL["calls-3000"])
    (tmp_path / "chain.py").write_text(PATHOLOGICAL["plus-100k"])
    (tmp_path / "good.py").write_text(GOOD)
    start = time.monotonic()
    proc = run_cli(str(tmp_path), "-j", jobs, "--no-cache", "--output-format", "json", "--file-timeout", "2",
                   "--targets", "all")
    assert time.monotonic() - start < 60
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert by_file(proc.stdout) == {"deep.py": {"E005"}, "calls.py": {"E005"}, "chain.py": {"E005"},
                                    "good.py": {"GB401", "TR302"}}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_uninterruptible_parse_is_killed_at_the_hard_deadline(tmp_path, jobs):
    """Ten subscript chains just under the depth limit: each about a second inside LibCST's native parser,
    which the --file-timeout alarm cannot interrupt; the worker is killed at the hard deadline instead. (The
    `match` statement is what the nodes built from Python's tree leave to LibCST's parser: analysis/ast_cst.py.)"""
    (tmp_path / "slow.py").write_text("match x:\n    case _:\n        pass\n" + "".join(f"x{i} = a" + "[0]" * (DEPTH - 100) + "\n" for i in range(10)))
    (tmp_path / "good.py").write_text(GOOD)
    start = time.monotonic()
    proc = run_cli(str(tmp_path), "-j", jobs, "--no-cache", "--output-format", "json", "--file-timeout", "0.5",
                   "--targets", "all")
    took = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr
    assert by_file(proc.stdout) == {"slow.py": {"E002"}, "good.py": {"GB401", "TR302"}}
    message = next(f["message"] for f in json.loads(proc.stdout)["findings"] if f["code"] == "E002")
    assert "could not be interrupted" in message
    assert took < 30


def test_fifo_and_device_named_py_are_skipped_with_e003(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink("/dev/zero", tmp_path / "zero.py")
    (tmp_path / "good.py").write_text(GOOD)
    proc = run_cli(str(tmp_path), "--no-cache", "--output-format", "json", "-j2", "--targets", "all", timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert by_file(proc.stdout) == {"pipe.py": {"E003"}, "zero.py": {"E003"}, "good.py": {"GB401", "TR302"}}
    messages = {os.path.basename(f["path"]): f["message"] for f in json.loads(proc.stdout)["findings"]}
    assert "a FIFO" in messages["pipe.py"] and "a character device" in messages["zero.py"]


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_no_worker_outlives_the_run(tmp_path, how):
    """Ctrl-C stops every worker; a parent killed outright takes its workers with it (PR_SET_PDEATHSIG)."""
    for i in range(2):
        (tmp_path / f"slow{i}.py").write_text("".join(f"x{j} = a" + "[0]" * (DEPTH - 100) + "\n" for j in range(30)))
    proc = subprocess.Popen([sys.executable, "-m", "compilelint", str(tmp_path), "-j2", "--no-cache",
                             "--file-timeout", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and time.monotonic() < deadline:
        workers |= _children(proc.pid)
        time.sleep(0.05)
    assert len(workers) == 2
    proc.send_signal(getattr(signal, how))
    rc = proc.wait(timeout=30)
    if how == "SIGINT":  # click's "Aborted." (exit 2), without a traceback
        assert rc == 2 and b"Traceback" not in proc.stderr.read()
    else:
        assert rc == -signal.SIGKILL
    gone = time.monotonic() + 10
    while time.monotonic() < gone and any(map(_alive, workers)):
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)]


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# --- found by benchmarks/fuzz.py --mode subprocess ---------------------------------------------------------------

def test_nul_bytes_in_custom_op_names_are_unknown_names_not_a_crash():
    """`evaluated_value` raises SyntaxError on a literal with a NUL byte: the custom-op rules (CO802, CO803)
    took the whole run down with it (seed 1, batch 10 of the 10,000-case run)."""
    source = (b'import torch\n@torch.library.custom_op("my\0lib::op", mutates_args=("x\0",))\n'
              b'def op(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n'
              b'@torch.library.register_fake("my\0lib::op")\ndef _(x):\n    return x.item()\n')
    result = analyze_source("ops.py", source, RULES, "ops", False)
    assert result.summary is not None
    assert ("GB401", 7) in {(f.code, f.line) for f, _, _ in result.findings}


def test_parse_cst_skips_node_validation_only_while_it_parses():
    """parse_cst builds the tree LibCST's own parse builds, without validating the parser's nodes, and leaves
    validation on for every node built afterwards, also after a parse that failed."""
    from compilelint.parse_guard import _unvalidated_nodes, parse_cst

    with _unvalidated_nodes():
        cst.Name("")  # not validated while the parser builds nodes
    source = b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.item() + 1\n"
    module = parse_cst(source)
    assert module.deep_equals(cst.parse_module(source)) and module.code.encode() == source
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
    with pytest.raises(cst.ParserSyntaxError):
        parse_cst(b"def (:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("")
