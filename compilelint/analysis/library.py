"""Library classes the tree's classes inherit from, found as source among the installed packages (never imported).

A model whose base lives in an installed package (`class Net(PreTrainedModel)`, a library block) is an
nn.Module only if that base's own chain of bases says so, and its `forward` may be the library's. The engine
reads the files that define those bases, index only (no rule runs on them and nothing is reported there), then
the files their own bases and re-exports lead to, for a few rounds and at most MAX_FILES files; the per-file
cache keeps what was read (keyed by content, so by the installed version). Packages are looked up on the path of
the Python running compilelint (`importlib.machinery.PathFinder`, which searches folders and imports nothing);
torch's own classes are known by name (index.is_torch_module_name) and the standard library is never read.
"""

from __future__ import annotations

import os
import sys
from importlib.machinery import PathFinder

from compilelint.analysis.index import RepoIndex, is_torch_module_name

MAX_FILES = 200
ROUNDS = 4
_NEVER = frozenset({"torch", "typing", "typing_extensions", "abc", "builtins", "enum", "collections"})


def library_files(index: RepoIndex, read: set[str], tree_packages: set[str]) -> list[str]:
    """The installed files that define or re-export the bases the index names but does not hold (not yet in
    `read`, the files already indexed), at most MAX_FILES of them in all; `tree_packages`: the top-level
    packages of the linted tree, which are never looked for elsewhere."""
    wanted: list[str] = []
    for key, info in index.classes.items():
        for base in info.bases:
            target = index.resolve_base(key, base)
            if target in index.classes or is_torch_module_name(base) or is_torch_module_name(target):
                continue
            top = target.partition(".")[0]
            if "." not in target or top in _NEVER or top in tree_packages or top in sys.stdlib_module_names:
                continue
            wanted.extend(f for f in _files_naming(target) if f not in read and f not in wanted)
    return wanted


def _files_naming(qualified: str) -> list[str]:
    """The package `__init__.py` files and the module on the way to `qualified` ("pkg.sub.mod.Class")."""
    parts = qualified.split(".")
    try:
        spec = PathFinder.find_spec(parts[0])
    except (ImportError, ValueError, OSError):
        return []
    if spec is None or not spec.submodule_search_locations:
        origin = getattr(spec, "origin", None) if spec is not None else None
        return [origin] if origin and origin.endswith(".py") and os.path.isfile(origin) else []
    out: list[str] = []
    folder = next(iter(spec.submodule_search_locations), None)
    if folder is None:
        return []
    init = os.path.join(folder, "__init__.py")
    if os.path.isfile(init):
        out.append(init)
    for part in parts[1:]:
        sub = os.path.join(folder, part)
        if os.path.isfile(os.path.join(sub, "__init__.py")):
            out.append(os.path.join(sub, "__init__.py"))
            folder = sub
        elif os.path.isfile(sub + ".py"):
            out.append(sub + ".py")
            break
        else:
            break
    return out
