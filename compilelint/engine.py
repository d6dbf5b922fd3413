"""The static pipeline: discover -> analyze each file (in parallel) -> index -> scope -> findings.

Static mode reads files and parses them; it never imports or executes them, and never imports torch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import hashlib
import multiprocessing
import os
import signal
import stat
import sys
from dataclasses import dataclass, field

from compilelint.analysis.index import RepoIndex
from compilelint.analysis.library import MAX_FILES as LIBRARY_MAX_FILES
from compilelint.analysis.library import ROUNDS as LIBRARY_ROUNDS
from compilelint.analysis.library import library_files
from compilelint.analysis import tensors
from compilelint.analysis.returns import digest as returns_digest
from compilelint.analysis.returns import MAX_IMPORTED, imported_class_modules, tree_returns
from compilelint.analysis.scope import Reach
from compilelint.analysis.unreached import KEPT_NAMES, outline, unreached
from compilelint.cache import Cache
from compilelint.analyzer import TRAINING_ONLY, FileResult, analyze_source, module_name_for
from compilelint.config import Config, candidate_targets
from compilelint.discovery import discover, project_context
from compilelint.findings import Finding, Related
from compilelint.rules.base import Rule, fit_message
from compilelint.rules.registry import (ANALYSIS_CRASHED, FILE_TIMEOUT, FILE_TOO_LARGE, READ_ERROR, all_rules,
                                        select_codes)
from compilelint.supervisor import Outcome, run_supervised
from compilelint.targets import choose as choose_targets
from compilelint.suppress import file_is_skipped

DEFAULT_FILE_TIMEOUT = 60.0
# LibCST needs ~500 bytes of memory per byte of source and cannot be interrupted inside its native
# parser (a 22 MB file took 11 GB and 3.7 minutes): larger files are reported, not parsed.
DEFAULT_MAX_FILE_MB = 4.0


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[str]
    rule_codes: list[str]
    missing: list[str] = field(default_factory=list)
    # SHA-256 of the bytes each file's findings were computed from: --fix writes only over exactly those
    digests: dict[str, str] = field(default_factory=dict)
    targets: tuple[str, ...] = ()  # the compile paths checked ("auto" resolved against the tree)
    targets_note: str = ""  # which, and why: the text report's first line


def selected_rules(config: Config) -> list[str]:
    rules = all_rules()
    codes = list(rules)
    chosen = select_codes(codes, config.select) | select_codes(codes, config.extend_select)
    # an opt-in rule runs only where its own code is selected, never through "ALL" or a prefix
    named = {s.strip().upper() for s in [*config.select, *config.extend_select]}
    chosen = {c for c in chosen if not rules[c].opt_in or c in named}
    chosen -= select_codes(codes, config.ignore)
    enabled_targets = set(candidate_targets(config.targets))  # "auto" narrows them once the tree is indexed
    return sorted(c for c in chosen if (set(rules[c].targets) & enabled_targets or not rules[c].targets)
                  and applies_to_torch(rules[c], config.torch_version) and applies_to_python(rules[c]))


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:2] if p.isdigit())


def applies_to_torch(rule: type[Rule], version: str) -> bool:
    """Whether a rule's claim holds for the project's torch version (its min_torch/max_torch range)."""
    v = _version(version)
    if rule.min_torch and v < _version(rule.min_torch):
        return False
    if rule.max_torch and v > _version(rule.max_torch):
        return False
    return True


def _settled(rule: type[Rule], finding: Finding, index: RepoIndex, scope: dict) -> Finding | None:
    """A tree_facts rule's finding as the whole tree decides it (`Rule.settle`), still saying it is about a training
    path where the walk said so: settle writes the message anew."""
    settled = rule.settle(finding, index, scope)
    if settled is not None and finding.message.endswith(TRAINING_ONLY) and not settled.message.endswith(TRAINING_ONLY):
        settled = dataclasses.replace(settled, message=fit_message(settled.message.rstrip(". ") + TRAINING_ONLY))
    return settled


def applies_to_python(rule: type[Rule], version: tuple[int, ...] | None = None) -> bool:
    """Whether a rule's claim holds on this Python (its max_python): the interpreter compilelint runs on."""
    return not rule.max_python or (version or tuple(sys.version_info[:2])) <= _version(rule.max_python)


class _FileTimeout(BaseException):
    """A BaseException, so the analyzer's `except Exception` (unparsable bytes: E001) cannot mistake the alarm
    for a parse error, which would then be cached and replayed as a finding."""


def _on_alarm(signum, frame):  # noqa: ANN001
    raise _FileTimeout()


_WORKER_RULES: list[Rule] = []
_WORKER_CODES: tuple[str, ...] = ()
_WORKER_TIMEOUT = DEFAULT_FILE_TIMEOUT
_WORKER_MAX_BYTES = int(DEFAULT_MAX_FILE_MB * 1e6)
_WORKER_CACHE: Cache | None = None


# Syntax trees are large and acyclic (reference counting frees them); with CPython's default thresholds the
# cyclic collector's full passes over every live node cost 15-25% of a lint run (measured on timm:
# benchmarks/lint_vs_parse.py). Workers collect young cycles rarely and leave imported modules out of the scans.
_GC_THRESHOLDS = (100_000, 50, 100)


def _init_pool_worker(*args) -> None:  # noqa: ANN002
    gc.set_threshold(*_GC_THRESHOLDS)
    gc.freeze()
    _init_worker(*args)


@contextlib.contextmanager
def _rare_gc():
    """The same collector settings for an in-process run, restored afterwards (a library caller's process)."""
    previous = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _init_worker(codes: list[str], timeout: float, max_bytes: int = _WORKER_MAX_BYTES,
                 cache_dir: str | None = None, returns: dict[str, str] | None = None) -> None:
    global _WORKER_RULES, _WORKER_CODES, _WORKER_TIMEOUT, _WORKER_MAX_BYTES, _WORKER_CACHE
    if tuple(codes) != _WORKER_CODES:  # the same rule objects keep the analyzer's tables for them warm
        rules = all_rules()
        _WORKER_RULES = [rules[c]() for c in codes]
        _WORKER_CODES = tuple(codes)
    _WORKER_TIMEOUT = timeout
    _WORKER_MAX_BYTES = max_bytes
    # a file's facts depend on what the other files' functions return: a change there is another cache
    tensors.set_tree_types(returns or {})
    extra = f"|{returns_digest(returns)}" if returns else ""
    _WORKER_CACHE = Cache(cache_dir, ",".join(codes) + f"|{max_bytes}{extra}") if cache_dir else None
    signal.signal(signal.SIGINT, signal.SIG_IGN) if multiprocessing.current_process().name != "MainProcess" else None


def _read_error(path: str, code: str, message: str) -> FileResult:
    finding = Finding(code=code, message=message, path=path, line=1, col=0, end_line=1, end_col=0, severity="error")
    return FileResult(path=path, summary=None, findings=[(finding, "", True)])


_NOT_REGULAR = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                (stat.S_ISSOCK, "a socket"))
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)


def _not_regular(path: str, mode: int) -> FileResult | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return _read_error(path, READ_ERROR, "cannot read file: it is a directory")
    kind = next((name for test, name in _NOT_REGULAR if test(mode)), "not a regular file")
    return _read_error(path, READ_ERROR, f"not a regular file ({kind}); skipped without reading")


def _read_source(path: str) -> bytes | FileResult:
    """The file's bytes, or the finding that says why there are none. Only regular files are read: a FIFO
    named *.py would block the read forever, a device could stream without end. The check is made on the
    path, and again on the open descriptor (opened without blocking), in case the file was swapped between."""
    try:
        refused = _not_regular(path, os.stat(path).st_mode)
        if refused is not None:
            return refused
        fd = os.open(path, _READ_FLAGS)
    except OSError as err:
        return _read_error(path, READ_ERROR, f"cannot read file: {err.strerror or err}")
    try:
        refused = _not_regular(path, os.fstat(fd).st_mode)
        if refused is not None:
            return refused
        with os.fdopen(os.dup(fd), "rb") as fh:
            source = fh.read(_WORKER_MAX_BYTES + 1) if _WORKER_MAX_BYTES > 0 else fh.read()
    except OSError as err:
        return _read_error(path, READ_ERROR, f"cannot read file: {err.strerror or err}")
    finally:
        os.close(fd)
    if _WORKER_MAX_BYTES > 0 and len(source) > _WORKER_MAX_BYTES:
        size = os.path.getsize(path)
        return _read_error(path, FILE_TOO_LARGE, f"file is {size / 1e6:.1f} MB, over the {_WORKER_MAX_BYTES / 1e6:g} MB "
                                                 "limit; not analyzed (raise --max-file-size)")
    return source


Task = str | tuple[str, bool] | tuple[str, bool, bool] | tuple[str, bool, bool, frozenset[str]]


def analyze_path(task: Task) -> FileResult:
    """Analyze one file. task: a path, or (path, with_rules[, all_positions[, blank]]); with_rules=False means
    index only (--shard); all_positions=False defers positions of findings outside local scope; blank: the
    functions whose bodies LibCST is not handed (analyzer.analyze_source)."""
    return _analyze_task(task)[0]


def _analyze_task(task: Task) -> tuple[FileResult, str]:
    """analyze_path, and the SHA-256 of the bytes analyzed ("" when none were): --fix writes only over
    exactly those bytes."""
    given = (task,) if isinstance(task, str) else task
    path, with_rules, all_positions, blank = (*given, *(None, True, True, frozenset())[len(given):])
    source = _read_source(path)
    if isinstance(source, FileResult):
        return source, ""
    digest = hashlib.sha256(source).hexdigest()
    if b"compilelint" in source and file_is_skipped(source.decode("utf-8", "replace")):
        return FileResult(path=path, summary=None), digest
    module_name, is_package = module_name_for(path)
    key = None
    if _WORKER_CACHE is not None:
        blanked = ",".join(sorted(blank))
        key = _WORKER_CACHE.key(path, source, f"{module_name}|{is_package}|{with_rules}|{all_positions}|{blanked}")
        cached = _WORKER_CACHE.get(key)
        if cached is None and not with_rules:  # a full result serves an index-only task too (--shard)
            cached = _WORKER_CACHE.get(_WORKER_CACHE.key(path, source,
                                                         f"{module_name}|{is_package}|True|False|{blanked}"))
        if isinstance(cached, FileResult):
            return cached, digest
    result = _analyze_with_alarm(path, source, module_name, is_package, with_rules, all_positions, blank)
    if key is not None and not any(f.code == FILE_TIMEOUT for f, _, _ in result.findings):
        _WORKER_CACHE.put(key, result)  # a timeout may be the machine's load, not the file: retry next time
    return result, digest


def _analyze_with_alarm(path: str, source: bytes, module_name: str, is_package: bool, with_rules: bool,
                        all_positions: bool, blank: frozenset[str] = frozenset()) -> FileResult:
    use_alarm = _WORKER_TIMEOUT > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _WORKER_TIMEOUT)
    try:
        return analyze_source(path, source, _WORKER_RULES if with_rules else [], module_name, is_package,
                              all_positions=all_positions, blank=blank)
    except _FileTimeout:
        return _read_error(path, FILE_TIMEOUT,
                           f"analysis took longer than {_WORKER_TIMEOUT:g}s; file skipped (raise --file-timeout)")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def hard_deadline(timeout: float) -> float | None:
    """Seconds after which a worker still on one file is killed: the file timeout (an alarm in the worker,
    which Python code obeys), plus a margin for LibCST's native parser, which no signal interrupts."""
    return timeout * 1.1 + 1.0 if timeout > 0 else None


def analyze_files(files: list[str], codes: list[str], jobs: int, timeout: float,
                  max_bytes: int = int(DEFAULT_MAX_FILE_MB * 1e6), cache_dir: str | None = None,
                  index_only: set[str] | frozenset[str] = frozenset(), all_positions: bool = False) -> list[FileResult]:
    return [result for result, _ in _analyze_all(files, codes, jobs, timeout, max_bytes, cache_dir, index_only,
                                                 all_positions)]


def _analyze_all(files: list[str], codes: list[str], jobs: int, timeout: float, max_bytes: int,
                 cache_dir: str | None, index_only: set[str] | frozenset[str],
                 all_positions: bool, blanks: dict[str, frozenset[str]] | None = None) -> list[tuple[FileResult, str]]:
    """(result, digest of the bytes analyzed) per file, in order. Always in worker processes (one with
    jobs=1), so that a file that crashes the native parser or overruns the hard deadline costs only its own
    result (E006, E002): compilelint/supervisor.py. `blanks`: path -> the functions whose bodies its analysis
    leaves out (analyzer.analyze_source)."""
    blanks = blanks or {}
    tasks = [(p, p not in index_only, all_positions, blanks.get(p, frozenset())) for p in files]
    if not tasks:
        return []
    initargs = (codes, timeout, max_bytes, cache_dir, _TREE_RETURNS)
    _init_worker(*initargs)
    if multiprocessing.current_process().daemon:  # a daemonic process may not start any: unsupervised
        with _rare_gc():
            return [_analyze_task(t) for t in tasks]
    _warm_up()
    # (the collector setting also covers unpickling every file's result into a growing heap)
    with _rare_gc():
        outcomes = run_supervised(tasks, _analyze_task, jobs=jobs, initializer=_init_pool_worker, initargs=initargs,
                                  deadline=hard_deadline(timeout))
    return [_result_of(task[0], outcome, timeout) for task, outcome in zip(tasks, outcomes)]


_WARM_UP_SOURCE = b"""
import torch


class Block(torch.nn.Module):
    def __init__(self, width: int = 4):
        super().__init__()
        self.proj = torch.nn.Linear(width, width)

    def forward(self, x):
        for _ in range(2):
            x = self.proj(x)
        if x.sum() > 0:
            print(x.shape, x.item())
        return torch.relu(x)
"""
_WARMED: set[tuple[int, ...]] = set()


def _warm_up() -> None:
    """Analyze a small module in this process, once per set of rule objects, before workers are forked: the
    first analysis in a process loads LibCST's native module and fills the analyzer's tables and caches
    (about 50-100 ms), which forked workers then inherit instead of each paying for it again."""
    key = tuple(id(rule) for rule in _WORKER_RULES)
    if key in _WARMED or not hasattr(os, "fork"):
        return
    _WARMED.add(key)
    analyze_source("<warm-up>.py", _WARM_UP_SOURCE, _WORKER_RULES, "warm_up", False, all_positions=False)


def _result_of(path: str, outcome: Outcome, timeout: float) -> tuple[FileResult, str]:
    if outcome.value is not None:
        return outcome.value
    if outcome.crashed:
        return _read_error(path, ANALYSIS_CRASHED,
                           f"the process analyzing this file died ({outcome.crashed}: a crash of the native "
                           "parser, or the system stopping it for memory); file not checked"), ""
    return _read_error(path, FILE_TIMEOUT,
                       f"analysis took longer than {timeout:g}s and could not be interrupted (native parser); "
                       f"its process was stopped after {outcome.overran:.1f}s and the file skipped "
                       "(raise --file-timeout)"), ""


def with_script_failure_rules(codes: list[str], config: Config) -> list[str]:
    """The rules to run for `codes`: with a `uses_script_failures` rule among them, also every rule whose error
    torch.jit.script raises while compiling (the facts it settles on; their own findings are not reported)."""
    rules = all_rules()
    helpers: set[str] = set()
    if any(rules[c].uses_script_failures for c in codes):
        helpers |= {c for c, r in rules.items() if r.fails_while_scripting() and not r.opt_in
                    and applies_to_torch(r, config.torch_version)}
    if any(rules[c].uses_graph_breaks for c in codes):  # and every graph-break rule for `index.graph_breaks`
        helpers |= {c for c, r in rules.items() if r.family == "graph-break" and not r.opt_in
                    and applies_to_torch(r, config.torch_version)}
    return sorted(set(codes) | helpers) if helpers else codes


def _graph_breaks(results: list[FileResult], rules: dict) -> dict[str, Finding]:
    """Function key -> the first finding (in line order) of a graph-break rule in that function: where Dynamo
    breaks the graph while tracing it, whichever frame inlines it (`uses_graph_breaks` rules settle on these)."""
    breaks: dict[str, Finding] = {}
    for result in results:
        for finding, scope_key, _ in result.findings:
            rule = rules.get(finding.code)
            if rule is None or rule.family != "graph-break" or not finding.gb_id:
                continue
            first = breaks.get(scope_key)
            if first is None or (finding.line or 1 << 30) < (first.line or 1 << 30):
                breaks[scope_key] = finding
    return breaks


def _script_failures(results: list[FileResult], rules: dict, index: RepoIndex,
                     scope: dict[str, frozenset[str]]) -> dict[str, Finding]:
    """Function key -> the first finding (in line order) of a rule whose error torch.jit.script raises while
    compiling that function, among the functions TorchScript compiles (a `tree_facts` rule's once settled)."""
    failures: dict[str, Finding] = {}
    for result in results:
        for finding, scope_key, _ in result.findings:
            rule = rules.get(finding.code)
            if rule is None or not rule.fails_while_scripting() or "torchscript" not in scope.get(scope_key, ()):
                continue
            if rule.tree_facts and (finding := _settled(rule, finding, index, scope)) is None:
                continue
            first = failures.get(scope_key)
            if first is None or finding.line < first.line:
                failures[scope_key] = finding
    return failures


_TREE_RETURNS: dict[str, str] = {}  # this run's analysis/returns.py table, handed to every worker


def _sources(files: list[str], max_bytes: int) -> list[tuple[str, str, bool, str]]:
    """(path, module, is_package, text) of each regular file within the size limit, for analysis/returns.py and
    analysis/unreached.py."""
    out = []
    for path in files:
        try:
            st = os.stat(path)
            if not stat.S_ISREG(st.st_mode) or (max_bytes > 0 and st.st_size > max_bytes):
                continue
            with open(path, "rb") as fh:
                text = fh.read().decode("utf-8", "replace")
        except OSError:
            continue
        out.append((path, *module_name_for(path), text))
    return out


def _imported_sources(files: list[str], sources: list[tuple[str, bool, str]],
                      max_bytes: int) -> list[tuple[str, bool, str]]:
    """The files of the given files' packages that they import classes from but were not given (a NamedTuple's
    module next to the model's), found beside the given files and read as text for their fields
    (analysis/returns.py), through package re-exports, at most returns.MAX_IMPORTED; never imported."""
    roots: dict[str, str] = {}  # top-level package -> the folder holding it
    have = {module for module, _, _ in sources}
    for path in files:
        module, is_package = module_name_for(path)
        parts = module.split(".")
        if parts[0] in roots:
            continue
        folder = os.path.dirname(os.path.abspath(path))
        for _ in parts if is_package else parts[:-1]:
            folder = os.path.dirname(folder)
        roots.setdefault(parts[0], folder)
    out: list[tuple[str, bool, str]] = []
    wanted = set().union(*(imported_class_modules(text, m, pkg) for m, pkg, text in sources)) if sources else set()
    for _ in range(3):  # a package's __init__ re-exporting the class from a module of its own
        found = []
        for module in sorted(wanted - have):
            have.add(module)
            root = roots.get(module.partition(".")[0])
            if root is None or len(out) >= MAX_IMPORTED:
                continue
            base = os.path.join(root, *module.split("."))
            for path, is_package in ((base + ".py", False), (os.path.join(base, "__init__.py"), True)):
                read = _sources([path], max_bytes) if os.path.isfile(path) else []
                if read:
                    out.append((module, is_package, read[0][3]))
                    found.append(out[-1])
                    break
        wanted = set().union(*(imported_class_modules(t, m, p) for m, p, t in found)) if found else set()
        if not wanted:
            break
    return out


def _library_bases(results: list[FileResult], codes: list[str], jobs: int, timeout: float, max_bytes: int,
                   cache_dir: str | None) -> list[FileResult]:
    """Index-only results of the installed files that define the tree's library bases, round by round through
    their own bases (compilelint/analysis/library.py); nothing is reported in them."""
    read = {os.path.realpath(r.path) for r in results}
    tree_packages = {r.summary.module.partition(".")[0] for r in results if r.summary is not None}
    out: list[FileResult] = []
    for _ in range(LIBRARY_ROUNDS):
        index = RepoIndex([r.summary for r in [*results, *out] if r.summary is not None])
        wanted = sorted({os.path.realpath(f) for f in library_files(index, read, tree_packages)} - read)
        wanted = wanted[:max(LIBRARY_MAX_FILES - len(out), 0)]
        if not wanted:
            break
        read |= set(wanted)
        out += [r for r, _ in _analyze_all(wanted, codes, jobs, timeout, max_bytes, cache_dir, set(wanted), False)]
    return out


def collect_findings(results: list[FileResult], codes: list[str], config: Config,
                     reached: Reach | None = None) -> list[Finding]:
    """The findings that scope keeps. `reached`: the scope of these very results, where the caller has it."""
    rules = all_rules()
    reached = reached or Reach(RepoIndex([r.summary for r in results if r.summary is not None]))
    index = reached.index
    scope = reached.scope
    selected = set(codes)
    index.script_failures = (_script_failures(results, rules, index, scope)
                             if any(rules[c].uses_script_failures for c in codes if c in rules) else {})
    index.graph_breaks = (_graph_breaks(results, rules)
                          if any(rules[c].uses_graph_breaks for c in codes if c in rules) else {})
    enabled = set(config.targets)
    findings: list[Finding] = []
    for result in results:
        ignored = select_codes(codes + [f.code for f, _, _ in result.findings], config.ignored_for(result.path)) \
            if config.per_file_ignores else set()
        for finding, scope_key, anywhere in result.findings:
            if finding.code in ignored:
                continue
            rule = rules.get(finding.code)
            if rule is None:  # engine findings: syntax errors, unreadable files
                findings.append(finding)
                continue
            if finding.code not in selected:
                continue  # run only for the facts a selected rule settles on (with_script_failure_rules)
            reach = set(rule.targets) if anywhere else set(scope.get(scope_key, ()))
            targets = [t for t in rule.targets if t in reach and t in enabled]
            if not targets:
                continue  # (before settling: most candidates sit in code no compiler reaches)
            if rule.tree_facts and (finding := _settled(rule, finding, index, scope)) is None:
                continue  # another file's facts decide it (a fake registered elsewhere in the tree)
            finding.targets = tuple(targets)
            if not anywhere:
                finding.reached_from = reached_from(reached, scope_key)
            findings.append(finding)
    findings.sort(key=Finding.sort_key)
    return findings


def reached_from(reach: Reach, key: str) -> list[Related]:
    """Where a function's code is compiled from: its entry point, then each function called on the way (the
    function itself left out); empty for an entry point."""
    chain = reach.chain(key)[:-1]
    out = []
    for i, step in enumerate(chain):
        fn = reach.index.functions.get(step)
        summary = reach.index.modules.get(step.partition(":")[0])
        if fn is None or summary is None:
            return []
        name = step.partition(":")[2]
        out.append(Related(fn.line, 0, f"entry point: {name}" if i == 0 else f"calls {name}", summary.path))
    return out


# Whether the workers leave out the bodies of functions no compile path reaches (analysis/unreached.py); the
# output is the same either way (tests/test_unreached.py), only the time differs.
BLANK_UNREACHED = True


def unreached_bodies(texts: list[tuple[str, str]], codes: list[str]) -> dict[str, frozenset[str]]:
    """Path -> the functions of that file whose bodies no compile path reaches, as analysis/unreached.py finds them
    from the files' text (`texts`: path, text). Nothing where a selected rule that reports anywhere does not say
    which words the functions it can report in write (`Rule.body_gate`)."""
    rules = all_rules()
    anywhere = [rules[c] for c in codes if c in rules and rules[c].applies_to == "anywhere"]
    if any(rule.body_gate is None for rule in anywhere):
        return {}
    gate = KEPT_NAMES.union(*(rule.body_gate for rule in anywhere))
    return unreached({path: outline(text) for path, text in texts}, gate)


def _reached_blanked(results: list[FileResult]) -> tuple[list[str], Reach | None]:
    """The files with a blanked function that scope reaches (they are analyzed again whole), and the scope of
    `results` (None where nothing was blanked)."""
    blanked = {key: result.path for result in results for key in result.blanked}
    if not blanked:
        return [], None
    reached = Reach(RepoIndex([r.summary for r in results if r.summary is not None]))
    return sorted({blanked[key] for key in reached.scope if key in blanked}), reached


def shard_of(path: str, root: str, count: int) -> int:
    """Deterministic 0-based shard of a file: a hash of its path relative to the project root."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    return int(hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest(), 16) % count


@_rare_gc()
def lint(paths: list[str], config: Config, *, jobs: int = 0, file_timeout: float = DEFAULT_FILE_TIMEOUT,
         force_exclude: bool = False, files: list[str] | None = None,
         max_file_mb: float = DEFAULT_MAX_FILE_MB, cache_dir: str | None = None,
         shard: tuple[int, int] | None = None, project: str | None = None) -> LintResult:
    """Lint `paths` (or exactly `files`). With `shard=(i, n)` (1-based i), every file is still indexed,
    since scope crosses files, but rules run and findings are reported only for shard i's files. With
    `project` (a folder), its other files are indexed too, so that what they compile counts for the files
    given: a helper given alone is checked as the forward in another file calls it (pre-commit)."""
    if files is None:
        files, missing = discover(paths, config.exclude + config.extend_exclude, config.root, force_exclude)
    else:
        missing = []
    codes = selected_rules(config)
    jobs = jobs or os.cpu_count() or 1
    index_only: set[str] = set()
    if shard is not None:
        index, count = shard
        index_only = {f for f in files if shard_of(f, config.root, count) != index - 1}
    if project is not None and files:
        context = project_context(files, project, config.exclude + config.extend_exclude, config.root)
        files = files + context
        index_only |= set(context)
    run_codes = with_script_failure_rules(codes, config)
    global _TREE_RETURNS
    texts = _sources(files, int(max_file_mb * 1e6))
    sources = [(module, is_package, text) for _, module, is_package, text in texts]
    _TREE_RETURNS = tree_returns(sources, _imported_sources(files, sources, int(max_file_mb * 1e6)))
    blanks = unreached_bodies([(path, text) for path, _, _, text in texts], run_codes) if BLANK_UNREACHED else {}
    analyzed = _analyze_all(files, run_codes, jobs, file_timeout, int(max_file_mb * 1e6), cache_dir, index_only, False,
                            blanks)
    results = [result for result, _ in analyzed]
    digests = {result.path: digest for result, digest in analyzed if digest}
    library = _library_bases(results, run_codes, jobs, file_timeout, int(max_file_mb * 1e6), cache_dir)
    while True:  # a guess that missed: those files whole, until scope reaches no blanked function
        redo, reached = _reached_blanked(results + library)
        if not redo:
            break
        for path in redo:
            blanks.pop(path, None)
        redone = {result.path: result for result, _ in _analyze_all(
            redo, run_codes, jobs, file_timeout, int(max_file_mb * 1e6), cache_dir, index_only, False)}
        results = [redone.get(r.path, r) for r in results]
    choice = choose_targets(config.targets, [r.summary for r in results if r.summary is not None],
                            config.targets_from, config.select + config.extend_select)
    results += library
    reported = codes  # the rules whose findings can be reported: the SARIF's rule list
    if tuple(config.targets) != choice.enabled:
        rules = all_rules()
        config = dataclasses.replace(config, targets=list(choice.enabled))
        reported = [c for c in codes if set(rules[c].targets) & set(choice.enabled) or not rules[c].targets]
    findings = collect_findings(results, codes, config, reached)
    # Findings whose position the first pass deferred (outside its file's local scope) but that another
    # file's code reaches: re-analyze just those files with every position computed.
    unplaced = sorted({f.path for f in findings if f.line == 0})
    if unplaced:
        redone = _analyze_all(unplaced, run_codes, jobs, file_timeout, int(max_file_mb * 1e6), cache_dir, frozenset(), True,
                              blanks)
        redo = {result.path: result for result, _ in redone}
        digests.update({result.path: digest for result, digest in redone if digest})  # what these findings read
        results = [redo.get(r.path, r) for r in results]
        findings = collect_findings(results, codes, config)
    if index_only:
        findings = [f for f in findings if f.path not in index_only]
    _TREE_RETURNS = {}
    return LintResult(findings=findings, files=[f for f in files if f not in index_only], rule_codes=reported,
                      missing=missing, digests=digests, targets=choice.enabled, targets_note=choice.note)
