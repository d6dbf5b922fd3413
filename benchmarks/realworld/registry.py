"""The real-world registry: every `make_*` factory of benchmarks/realworld/models/*.py, read without importing.

Each models file names its library (`LIBRARY`, the pip distribution) and the import package whose files
count as the library's (`PACKAGE`, the probe's scope). A factory builds one model from its config with random
weights and returns {"model": ..., "inputs": [five input sets]} (compilelint probe's factory protocol).
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
ROOT = os.path.dirname(os.path.dirname(HERE))  # the repository


@dataclass(frozen=True)
class Entry:
    name: str      # "kornia_models:make_loftr"
    library: str   # pip distribution, e.g. "stable-baselines3"
    package: str   # import package, e.g. "stable_baselines3"
    path: str      # the models file, relative to the repository root
    factory: str
    doc: str

    @property
    def target(self) -> str:
        """The probe target string, relative to the repository root."""
        return f"{self.path}:{self.factory}"


def _constant(tree: ast.Module, name: str) -> str | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                return node.value.value
    return None


def entries() -> list[Entry]:
    out: list[Entry] = []
    for filename in sorted(os.listdir(MODELS)):
        if not filename.endswith("_models.py"):
            continue
        path = os.path.join(MODELS, filename)
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=path)
        library, package = _constant(tree, "LIBRARY"), _constant(tree, "PACKAGE")
        if not library or not package:
            raise ValueError(f"{path}: LIBRARY and PACKAGE must be string constants")
        rel = os.path.relpath(path, ROOT)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("make_"):
                doc = (ast.get_docstring(node) or "").splitlines()[0] if ast.get_docstring(node) else ""
                out.append(Entry(name=f"{filename[:-3]}:{node.name}", library=library, package=package, path=rel,
                                 factory=node.name, doc=doc))
    return out
