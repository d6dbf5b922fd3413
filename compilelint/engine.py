"""The static pipeline: discover -> analyze each file (in parallel) -> index -> scope -> findings.

Static mode reads files and parses them; it never imports or executes them, and never imports torch.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import multiprocessing
import os
import signal
from dataclasses import dataclass, field

from compilelint.analysis.index import RepoIndex
from compilelint.analysis.scope import compute_scope
from compilelint.cache import Cache
from compilelint.analyzer import FileResult, analyze_source, module_name_for
from compilelint.config import Config
from compilelint.discovery import discover
from compilelint.findings import Finding
from compilelint.rules.base import Rule
from compilelint.rules.registry import FILE_TIMEOUT, FILE_TOO_LARGE, READ_ERROR, all_rules, select_codes
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


def selected_rules(config: Config) -> list[str]:
    rules = all_rules()
    codes = list(rules)
    chosen = select_codes(codes, config.select) | select_codes(codes, config.extend_select)
    # an opt-in rule runs only where its own code is selected, never through "ALL" or a prefix
    named = {s.strip().upper() for s in [*config.select, *config.extend_select]}
    chosen = {c for c in chosen if not rules[c].opt_in or c in named}
    chosen -= select_codes(codes, config.ignore)
    enabled_targets = set(config.targets)
    return sorted(c for c in chosen if (set(rules[c].targets) & enabled_targets or not rules[c].targets)
                  and applies_to_torch(rules[c], config.torch_version))


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


class _FileTimeout(BaseException):
    """A BaseException, so the analyzer's `except Exception` (unparsable bytes: E001) cannot mistake the alarm
    for a parse error, which would then be cached and replayed as a finding."""


def _on_alarm(signum, frame):  # noqa: ANN001
    raise _FileTimeout()


_WORKER_RULES: list[Rule] = []
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
                 cache_dir: str | None = None) -> None:
    global _WORKER_RULES, _WORKER_TIMEOUT, _WORKER_MAX_BYTES, _WORKER_CACHE
    rules = all_rules()
    _WORKER_RULES = [rules[c]() for c in codes]
    _WORKER_TIMEOUT = timeout
    _WORKER_MAX_BYTES = max_bytes
    _WORKER_CACHE = Cache(cache_dir, ",".join(codes) + f"|{max_bytes}") if cache_dir else None
    signal.signal(signal.SIGINT, signal.SIG_IGN) if multiprocessing.current_process().name != "MainProcess" else None


def _read_error(path: str, code: str, message: str) -> FileResult:
    finding = Finding(code=code, message=message, path=path, line=1, col=0, end_line=1, end_col=0, severity="error")
    return FileResult(path=path, summary=None, findings=[(finding, "", True)])


def analyze_path(task: str | tuple[str, bool] | tuple[str, bool, bool]) -> FileResult:
    """Analyze one file. task: a path, or (path, with_rules[, all_positions]); with_rules=False means
    index only (--shard); all_positions=False defers positions of findings outside local scope."""
    if isinstance(task, str):
        path, with_rules, all_positions = task, True, True
    else:
        path, with_rules, all_positions = (*task, True)[:3]
    try:
        with open(path, "rb") as fh:
            source = fh.read(_WORKER_MAX_BYTES + 1) if _WORKER_MAX_BYTES > 0 else fh.read()
        if _WORKER_MAX_BYTES > 0 and len(source) > _WORKER_MAX_BYTES:
            size = os.path.getsize(path)
            return _read_error(path, FILE_TOO_LARGE, f"file is {size / 1e6:.1f} MB, over the {_WORKER_MAX_BYTES / 1e6:g} MB "
                                                     "limit; not analyzed (raise --max-file-size)")
    except IsADirectoryError:
        return _read_error(path, READ_ERROR, "cannot read file: it is a directory")
    except OSError as err:
        return _read_error(path, READ_ERROR, f"cannot read file: {err.strerror or err}")
    if b"compilelint" in source and file_is_skipped(source.decode("utf-8", "replace")):
        return FileResult(path=path, summary=None)
    module_name, is_package = module_name_for(path)
    key = None
    if _WORKER_CACHE is not None:
        key = _WORKER_CACHE.key(path, source, f"{module_name}|{is_package}|{with_rules}|{all_positions}")
        cached = _WORKER_CACHE.get(key)
        if cached is None and not with_rules:  # a full result serves an index-only task too (--shard)
            cached = _WORKER_CACHE.get(_WORKER_CACHE.key(path, source, f"{module_name}|{is_package}|True|False"))
        if isinstance(cached, FileResult):
            return cached
    result = _analyze_with_alarm(path, source, module_name, is_package, with_rules, all_positions)
    if key is not None and not any(f.code == FILE_TIMEOUT for f, _, _ in result.findings):
        _WORKER_CACHE.put(key, result)  # a timeout may be the machine's load, not the file: retry next time
    return result


def _analyze_with_alarm(path: str, source: bytes, module_name: str, is_package: bool, with_rules: bool,
                        all_positions: bool) -> FileResult:
    use_alarm = _WORKER_TIMEOUT > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _WORKER_TIMEOUT)
    try:
        return analyze_source(path, source, _WORKER_RULES if with_rules else [], module_name, is_package,
                              all_positions=all_positions)
    except _FileTimeout:
        return _read_error(path, FILE_TIMEOUT,
                           f"analysis took longer than {_WORKER_TIMEOUT:g}s; file skipped (raise --file-timeout)")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def analyze_files(files: list[str], codes: list[str], jobs: int, timeout: float,
                  max_bytes: int = int(DEFAULT_MAX_FILE_MB * 1e6), cache_dir: str | None = None,
                  index_only: set[str] | frozenset[str] = frozenset(), all_positions: bool = False) -> list[FileResult]:
    tasks = [(p, p not in index_only, all_positions) for p in files]
    if jobs <= 1 or len(files) <= 1:
        _init_worker(codes, timeout, max_bytes, cache_dir)
        with _rare_gc():
            return [analyze_path(t) for t in tasks]
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    chunksize = max(1, min(16, len(files) // (jobs * 4) or 1))
    with ctx.Pool(jobs, initializer=_init_pool_worker, initargs=(codes, timeout, max_bytes, cache_dir)) as pool, \
            _rare_gc():  # unpickling every file's result into a growing heap: the same collector cost
        return list(pool.imap(analyze_path, tasks, chunksize=chunksize))


def collect_findings(results: list[FileResult], codes: list[str], config: Config) -> list[Finding]:
    rules = all_rules()
    index = RepoIndex([r.summary for r in results if r.summary is not None])
    scope = compute_scope(index)
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
            if rule.tree_facts and (finding := rule.settle(finding, index, scope)) is None:
                continue  # another file's facts decide it (a fake registered elsewhere in the tree)
            reach = set(rule.targets) if anywhere else set(scope.get(scope_key, ()))
            targets = [t for t in rule.targets if t in reach and t in enabled]
            if not targets:
                continue
            finding.targets = tuple(targets)
            findings.append(finding)
    findings.sort(key=Finding.sort_key)
    return findings


def shard_of(path: str, root: str, count: int) -> int:
    """Deterministic 0-based shard of a file: a hash of its path relative to the project root."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    return int(hashlib.sha256(rel.encode("utf-8", "surrogateescape")).hexdigest(), 16) % count


@_rare_gc()
def lint(paths: list[str], config: Config, *, jobs: int = 0, file_timeout: float = DEFAULT_FILE_TIMEOUT,
         force_exclude: bool = False, files: list[str] | None = None,
         max_file_mb: float = DEFAULT_MAX_FILE_MB, cache_dir: str | None = None,
         shard: tuple[int, int] | None = None) -> LintResult:
    """Lint `paths` (or exactly `files`). With `shard=(i, n)` (1-based i), every file is still indexed,
    since scope crosses files, but rules run and findings are reported only for shard i's files."""
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
    results = analyze_files(files, codes, jobs, file_timeout, int(max_file_mb * 1e6), cache_dir, index_only)
    findings = collect_findings(results, codes, config)
    # Findings whose position the first pass deferred (outside its file's local scope) but that another
    # file's code reaches: re-analyze just those files with every position computed.
    unplaced = sorted({f.path for f in findings if f.line == 0})
    if unplaced:
        redo = {r.path: r for r in analyze_files(unplaced, codes, jobs, file_timeout, int(max_file_mb * 1e6),
                                                   cache_dir, all_positions=True)}
        results = [redo.get(r.path, r) for r in results]
        findings = collect_findings(results, codes, config)
    if index_only:
        findings = [f for f in findings if f.path not in index_only]
    return LintResult(findings=findings, files=[f for f in files if f not in index_only], rule_codes=codes,
                      missing=missing)
