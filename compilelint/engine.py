"""The static pipeline: discover -> analyze each file (in parallel) -> index -> scope -> findings.

Static mode reads files and parses them; it never imports or executes them, and never imports torch.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import dataclass, field

from compilelint.analysis.index import RepoIndex
from compilelint.analysis.scope import compute_scope
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
    chosen -= select_codes(codes, config.ignore)
    enabled_targets = set(config.targets)
    return sorted(c for c in chosen if set(rules[c].targets) & enabled_targets or not rules[c].targets)


class _FileTimeout(Exception):
    pass


def _on_alarm(signum, frame):  # noqa: ANN001
    raise _FileTimeout()


_WORKER_RULES: list[Rule] = []
_WORKER_TIMEOUT = DEFAULT_FILE_TIMEOUT
_WORKER_MAX_BYTES = int(DEFAULT_MAX_FILE_MB * 1e6)


def _init_worker(codes: list[str], timeout: float, max_bytes: int = _WORKER_MAX_BYTES) -> None:
    global _WORKER_RULES, _WORKER_TIMEOUT, _WORKER_MAX_BYTES
    rules = all_rules()
    _WORKER_RULES = [rules[c]() for c in codes]
    _WORKER_TIMEOUT = timeout
    _WORKER_MAX_BYTES = max_bytes
    signal.signal(signal.SIGINT, signal.SIG_IGN) if multiprocessing.current_process().name != "MainProcess" else None


def _read_error(path: str, code: str, message: str) -> FileResult:
    finding = Finding(code=code, message=message, path=path, line=1, col=0, end_line=1, end_col=0, severity="error")
    return FileResult(path=path, summary=None, findings=[(finding, "", True)])


def analyze_path(path: str) -> FileResult:
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
    use_alarm = _WORKER_TIMEOUT > 0 and hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _WORKER_TIMEOUT)
    try:
        return analyze_source(path, source, _WORKER_RULES, module_name, is_package)
    except _FileTimeout:
        return _read_error(path, FILE_TIMEOUT,
                           f"analysis took longer than {_WORKER_TIMEOUT:g}s; file skipped (raise --file-timeout)")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def analyze_files(files: list[str], codes: list[str], jobs: int, timeout: float,
                  max_bytes: int = int(DEFAULT_MAX_FILE_MB * 1e6)) -> list[FileResult]:
    if jobs <= 1 or len(files) <= 1:
        _init_worker(codes, timeout, max_bytes)
        return [analyze_path(p) for p in files]
    ctx = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    chunksize = max(1, min(16, len(files) // (jobs * 4) or 1))
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(codes, timeout, max_bytes)) as pool:
        return list(pool.imap(analyze_path, files, chunksize=chunksize))


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
            reach = set(rule.targets) if anywhere else set(scope.get(scope_key, ()))
            targets = [t for t in rule.targets if t in reach and t in enabled]
            if not targets:
                continue
            finding.targets = tuple(targets)
            findings.append(finding)
    findings.sort(key=Finding.sort_key)
    return findings


def lint(paths: list[str], config: Config, *, jobs: int = 0, file_timeout: float = DEFAULT_FILE_TIMEOUT,
         force_exclude: bool = False, files: list[str] | None = None,
         max_file_mb: float = DEFAULT_MAX_FILE_MB) -> LintResult:
    if files is None:
        files, missing = discover(paths, config.exclude + config.extend_exclude, config.root, force_exclude)
    else:
        missing = []
    codes = selected_rules(config)
    jobs = jobs or os.cpu_count() or 1
    results = analyze_files(files, codes, jobs, file_timeout, int(max_file_mb * 1e6))
    return LintResult(findings=collect_findings(results, codes, config), files=files, rule_codes=codes,
                      missing=missing)
