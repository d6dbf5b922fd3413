"""Positions computed for findings agree with LibCST's own PositionProvider on real files."""

from __future__ import annotations

import glob
import os

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from compilelint.analysis.positions import positions_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INTERESTING = (cst.Call, cst.Name, cst.If, cst.While, cst.FunctionDef, cst.Param, cst.Attribute, cst.Lambda,
               cst.AugAssign, cst.ClassDef, cst.For)


def _collect(tree: cst.CSTNode) -> list[cst.CSTNode]:
    nodes: list[cst.CSTNode] = []

    class Collect(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, INTERESTING):
                nodes.append(node)
            return True

    tree.visit(Collect())
    return nodes


def test_positions_match_libcst_on_this_repo():
    files = sorted(glob.glob(os.path.join(ROOT, "compilelint", "**", "*.py"), recursive=True))
    checked = 0
    for path in files:
        with open(path, "rb") as fh:
            module = cst.parse_module(fh.read())
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for index, stmt in enumerate(module.body):
            nodes = _collect(stmt)
            got = positions_of(module, nodes, {index})
            for node in nodes:
                r = expected[node]
                assert got[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), (path, node)
                checked += 1
    assert checked > 5000


TRICKY = (
    b"#!/usr/bin/env python\n# header comment\n\nimport torch\n\n\n# leading comment\n@decorator  # one\n"
    b"# between decorators\n@other(\n    1,\n)\ndef f(x):\n    return x.item()\n\na = (1,\n     2); b = f(a)\n"
    b"c = 1; d = f(c)\nif a:\n    pass\nelse:\n    e = f(\n        d)\n\n\nclass K:\n    @staticmethod\n"
    b"    def g(t):\n        return t\n    # trailing comment\n"
)


def test_statement_lines_skip_the_other_statements():
    """With `starts` from Python's own parser, only the statements that hold findings are generated, and
    every position is still LibCST's: decorators with comments between them, `;` on a continued line,
    a module header, CRLF line ends."""
    from compilelint.analysis.positions import statement_lines

    for source in (TRICKY, TRICKY.replace(b"\n", b"\r\n")):
        module = cst.parse_module(source)
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        starts = statement_lines(module, source)
        assert starts is not None and len(starts) == len(module.body)
        nodes = _collect(module)
        for index in range(len(module.body)):
            got = positions_of(module, nodes, {index}, starts=starts)
            for node in nodes:
                if id(node) in got:
                    r = expected[node]
                    assert got[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), node
    assert statement_lines(cst.parse_module(b"x = 1\n"), b"x = (\n") is None  # parsers disagree: no shortcut
