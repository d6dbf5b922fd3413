"""Which files to lint: the paths given, folders walked recursively, in a deterministic order."""

from __future__ import annotations

import fnmatch
import os

DEFAULT_EXCLUDES = (".git", ".hg", ".svn", ".venv", "venv", ".env", "env", "__pycache__", "build", "dist",
                    "site-packages", "node_modules", ".tox", ".nox", ".mypy_cache", ".pytest_cache",
                    ".ruff_cache", ".eggs", "*.egg-info", ".compilelint_cache")


def _matches(path: str, patterns: list[str], root: str) -> bool:
    rel = os.path.relpath(path, root).replace(os.sep, "/")
    name = os.path.basename(path)
    for pattern in patterns:
        p = pattern.rstrip("/")
        if fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) or rel == p or rel.startswith(p + "/"):
            return True
    return False


def discover(paths: list[str], excludes: list[str], root: str = ".", force_exclude: bool = False) -> tuple[list[str], list[str]]:
    """Return (python files, problems). Problems are paths that do not exist.

    Files named explicitly are linted even if excluded, unless `force_exclude` (what pre-commit,
    which passes every changed file by name, needs). A file reached twice (named twice, as `./a.py` and
    `/abs/a.py`, through a symlink, or inside two folders given) is linted once, under the spelling
    first found that is not a symlink (else the first found).
    """
    root = os.path.abspath(root)
    patterns = list(DEFAULT_EXCLUDES) + list(excludes)
    found: list[str] = []
    missing: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            seen_dirs: set[tuple[int, int]] = set()
            for directory, dirnames, filenames in os.walk(given, followlinks=True):
                try:
                    st = os.stat(directory)
                except OSError:
                    dirnames[:] = []
                    continue
                ident = (st.st_dev, st.st_ino)
                if ident in seen_dirs:  # a symlink loop
                    dirnames[:] = []
                    continue
                seen_dirs.add(ident)
                dirnames[:] = sorted(d for d in dirnames if not _matches(os.path.join(directory, d), patterns, root))
                for name in sorted(filenames):
                    full = os.path.join(directory, name)
                    if name.endswith(".py") and not _matches(full, patterns, root):
                        found.append(os.path.normpath(full))
        elif os.path.lexists(given):
            if force_exclude and _matches(os.path.abspath(given), patterns, root):
                continue
            found.append(os.path.normpath(given))
        else:
            missing.append(given)
    return sorted(_one_per_real_file(found)), missing


def _one_per_real_file(paths: list[str]) -> list[str]:
    chosen: dict[str, str] = {}
    for path in paths:
        real = os.path.realpath(path)
        current = chosen.get(real)
        if current is None or (current != path and _through_symlink(current) and not _through_symlink(path)):
            chosen[real] = path
    return list(chosen.values())


def _through_symlink(path: str) -> bool:
    return os.path.realpath(path) != os.path.abspath(path)
