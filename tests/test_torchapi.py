"""compilelint/torchapi: every torch table says which releases it was verified on, and nothing else re-lists one."""
from __future__ import annotations

import ast
import importlib
import pickle
import pkgutil
import re
from pathlib import Path

import pytest

import compilelint.torchapi as torchapi
from compilelint.torchapi import Names, Table

ROOT = Path(__file__).resolve().parent.parent


def _tables() -> dict[str, Names | Table]:
    found = {}
    for info in pkgutil.iter_modules(torchapi.__path__, prefix="compilelint.torchapi."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.isupper() and not name.startswith("_") and isinstance(value, (frozenset, set, dict, tuple, list)):
                found[f"{info.name}.{name}"] = value
    return found


def _ci_torch() -> tuple[int, ...]:
    pin = re.search(r"torch==([0-9.]+)", (ROOT / ".ci" / "run").read_text())
    assert pin, ".ci/run pins torch"
    return tuple(int(p) for p in pin.group(1).split(".")[:2])


def test_every_table_names_the_releases_it_was_verified_on():
    tables = _tables()
    assert len(tables) > 30
    ci = _ci_torch()
    for name, table in tables.items():
        assert isinstance(table, (Names, Table)), f"{name} is a bare {type(table).__name__}: give it verified_on"
        assert table.verified_on, name
        for release in table.verified_on:
            assert re.fullmatch(r"\d+\.\d+", release), (name, release)
            # a release newer than the one CI runs cannot have been verified by the suite
            assert tuple(int(p) for p in release.split(".")) <= ci, (name, release)


def test_a_table_without_releases_is_refused():
    with pytest.raises(ValueError, match="verified on"):
        Names({"torch.nonzero"}, verified_on=())
    with pytest.raises(ValueError, match="verified on"):
        Table({"numpy.pad": "GB0033"}, verified_on=())


def test_tables_survive_pickling_with_their_releases():
    from compilelint.torchapi.dynamo import THREAD_LOCKS, UNTRACEABLE_NUMPY

    for table in (THREAD_LOCKS, UNTRACEABLE_NUMPY):
        copy = pickle.loads(pickle.dumps(table))
        assert copy == table and type(copy) is type(table) and copy.verified_on == table.verified_on


def _string_collections(path: Path) -> list[tuple[int, frozenset[str]]]:
    """Every set, list, tuple or dict display in the file with two or more string constants (a dict: its keys)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        strings = frozenset(e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str))
        if len(strings) >= 2:
            out.append((node.lineno, strings))
    return out


def test_no_graph_break_rule_or_semantic_module_relists_a_torch_table():
    """A GB rule or the model that needs the names of a torchapi table imports it: a second list of the same
    qualified names (two or more of them) would drift from the one the version note is about."""
    tables = {name: frozenset(t) for name, t in _tables().items() if len(t) >= 2}
    files = [*sorted((ROOT / "compilelint" / "rules" / "graph_breaks").glob("*.py")),
             *sorted((ROOT / "compilelint" / "semantic").glob("*.py"))]
    offenders = []
    for path in files:
        for line, strings in _string_collections(path):
            for name, names in tables.items():
                if len(strings & names) >= 2 and all(isinstance(s, str) and "." in s for s in strings & names):
                    offenders.append(f"{path.relative_to(ROOT)}:{line} re-lists {sorted(strings & names)} of {name}")
    assert not offenders, "\n".join(offenders)
