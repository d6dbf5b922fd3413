"""Finds every rule: each module under compilelint/rules/<family>/ defines one Rule subclass."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

import compilelint.rules as rules_pkg
from compilelint.rules.base import Rule

# Rules the engine itself emits (not visitors): a file that does not parse, a file that timed out.
SYNTAX_ERROR = "E001"
FILE_TIMEOUT = "E002"
READ_ERROR = "E003"  # also: not a regular file (a FIFO, a device), skipped unopened
FILE_TOO_LARGE = "E004"
TOO_COMPLEX = "E005"  # nesting or an expression chain beyond what the native parser survives (parse_guard.py)
ANALYSIS_CRASHED = "E006"  # the worker process analyzing the file died (a signal): the file is skipped
ENGINE_CODES = frozenset({SYNTAX_ERROR, FILE_TIMEOUT, READ_ERROR, FILE_TOO_LARGE, TOO_COMPLEX, ANALYSIS_CRASHED})
# (name, description) of each engine code, for reporters that describe rules (SARIF)
ENGINE_DESCRIPTIONS = {
    SYNTAX_ERROR: ("syntax-error", "The file does not parse; nothing in it was checked."),
    FILE_TIMEOUT: ("file-timeout", "Analysis of the file exceeded the per-file time limit."),
    READ_ERROR: ("read-error", "The file could not be read, or is not a regular file."),
    FILE_TOO_LARGE: ("file-too-large", "The file is over the size limit (--max-file-size) and was not analyzed."),
    TOO_COMPLEX: ("file-too-complex", "The file nests brackets or expressions deeper than the parser's or the "
                                      "analysis's limits and was not analyzed."),
    ANALYSIS_CRASHED: ("analysis-crashed", "The process analyzing the file died; the file was not checked."),
}


@lru_cache(maxsize=1)
def all_rules() -> dict[str, type[Rule]]:
    found: dict[str, type[Rule]] = {}
    for info in pkgutil.walk_packages(rules_pkg.__path__, prefix="compilelint.rules."):
        if info.name.rsplit(".", 1)[-1] in ("base", "registry"):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and value.code:
                if value.__module__ != module.__name__:
                    continue
                if value.code in found and found[value.code] is not value:
                    raise RuntimeError(f"duplicate rule code {value.code}: {found[value.code]} and {value}")
                found[value.code] = value
    return dict(sorted(found.items()))


def _family(code: str) -> str:
    """The letters a code or selector starts with: "EX" for EX701, "E" for E001 and for "E"."""
    end = 0
    while end < len(code) and code[end].isalpha():
        end += 1
    return code[:end]


def select_codes(codes: list[str], selectors: list[str]) -> set[str]:
    """Codes matched by selectors, ruff-style: "ALL", a full code, or a prefix ("TS", "GB4"). A prefix
    names a whole family, so "E" (the engine's E001-E004) does not take in the export family EX7xx."""
    chosen: set[str] = set()
    for sel in selectors:
        sel = sel.strip().upper()
        if not sel:
            continue
        if sel == "ALL":
            chosen.update(codes)
        else:
            family = _family(sel)
            chosen.update(c for c in codes if c.startswith(sel) and _family(c) == family)
    return chosen


def unknown_selectors(selectors: list[str]) -> list[str]:
    """Selectors that match no rule and no engine code (a typo would otherwise select nothing, silently)."""
    known = list(all_rules()) + sorted(ENGINE_CODES)
    return [s for s in selectors if s.strip() and not select_codes(known, [s])]
