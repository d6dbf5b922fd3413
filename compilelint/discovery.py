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


# A project larger than this is not read whole for a partial file list (the files given are analysed alone):
# reading costs about as much as linting, and a pre-commit run should stay a fraction of a full one.
MAX_PROJECT_FILES = 5000


def project_root(config_source: str | None, first_path: str) -> str | None:
    """The folder a run reads whole for scope when given some of its files: where the pyproject.toml with a
    [tool.compilelint] table is, else the repository's top (.git or .hg); None when there is neither."""
    from compilelint.config import find_vcs_root

    if config_source:
        return os.path.dirname(os.path.abspath(config_source))
    return find_vcs_root(first_path)


def project_context(files: list[str], root: str, excludes: list[str], config_root: str) -> list[str]:
    """The project's other Python files (under `root`, excludes applied): read for scope only, so that a helper
    given alone is checked as the model in another file calls it. Empty past MAX_PROJECT_FILES."""
    found, _ = discover([root], excludes, config_root)
    given = {os.path.realpath(f) for f in files}
    others = [f for f in found if os.path.realpath(f) not in given]
    return others if len(others) <= MAX_PROJECT_FILES else []
