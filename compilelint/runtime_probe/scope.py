"""Which files count as the user's: where the probe reports events, counts coverage and lints.

By default the user's files are those outside the interpreter's standard library and installed packages
(and outside compilelint). A model built from a library's blocks breaks inside the library, so the user
can widen the scope (`compilelint probe --scope kornia`, or `[tool.compilelint.probe] scope = [...]`):

    "kornia"            the files of an installed package (found without importing it)
    "src/vendor/"       the files under a folder
    "all"               every installed package too, except torch's own code

torch's own files never count: an event raised inside torch is reported at the deepest frame in scope
that called it. The parent resolves names to folders (`resolve`); the child gets only folders.
"""

from __future__ import annotations

import importlib.util
import os
import sysconfig

ALL = "all"


class ScopeError(ValueError):
    """A scope entry that names neither an installed package nor a folder."""


def _dir(path: str) -> str:
    return os.path.join(os.path.realpath(path), "")


def library_dirs() -> tuple[str, ...]:
    """The standard library, site-packages and compilelint itself: not the user's by default."""
    dirs = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the compilelint package
    return tuple(_dir(d) for d in dirs if d)


def _package_dirs(name: str) -> list[str]:
    """The folders of an installed top-level package or module, without importing it."""
    top = name.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        return []
    if spec.submodule_search_locations:
        base = [_dir(p) for p in spec.submodule_search_locations]
        rest = name.split(".")[1:]
        return [_dir(os.path.join(b, *rest)) for b in base if os.path.isdir(os.path.join(b, *rest))] if rest else base
    return [spec.origin] if spec.origin and spec.origin.endswith(".py") else []


def _site_dirs() -> tuple[str, ...]:
    return tuple(_dir(sysconfig.get_paths()[k]) for k in ("purelib", "platlib"))


def never_user() -> tuple[str, ...]:
    """torch's own code (and compilelint's): never the user's, whatever the scope says."""
    out = [_dir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))]
    for name in ("torch", "torchgen", "functorch"):
        out.extend(_package_dirs(name))
    return tuple(out)


def resolve(entries: list[str] | tuple[str, ...], base: str = ".") -> list[str]:
    """Scope entries as the child takes them: folders and files (real paths), or ["all"]. Raises ScopeError."""
    out: list[str] = []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        if entry == ALL:
            out.append(ALL)
            continue
        path = entry if os.path.isabs(entry) else os.path.join(base, entry)
        if os.path.isdir(path):
            out.append(_dir(path))
            continue
        if os.path.isfile(path) and path.endswith(".py"):
            out.append(os.path.realpath(path))
            continue
        found = _package_dirs(entry) if all(p.isidentifier() for p in entry.split(".")) else []
        if not found:
            raise ScopeError(f"scope {entry!r}: neither an installed package nor a folder")
        out.extend(found)
    return list(dict.fromkeys(out))


class FileScope:
    """Callable: whether a file is the user's under this scope. `FileScope()` is the default scope."""

    def __init__(self, entries: list[str] | tuple[str, ...] = (), *, library: tuple[str, ...] | None = None,
                 excluded: tuple[str, ...] | None = None) -> None:
        self.everything = ALL in entries
        self.included = tuple(e for e in entries if e != ALL)
        self.library = library if library is not None else library_dirs()
        self.excluded = excluded if excluded is not None else (never_user() if entries else ())
        self._known: dict[str, bool] = {}

    def __call__(self, filename: str | None) -> bool:
        if not filename:
            return False
        known = self._known.get(filename)
        if known is None:
            known = self._decide(filename)
            self._known[filename] = known
        return known

    def _decide(self, filename: str) -> bool:
        if filename.startswith("<") or not filename.endswith(".py"):
            return False
        real = os.path.realpath(filename)
        if not os.path.exists(real) or real.startswith(self.excluded) or real in self.excluded:
            return False
        if real.startswith(self.included) or real in self.included:
            return True
        if self.everything and real.startswith(_site_dirs()):
            return True
        return not real.startswith(self.library)
