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


def test_positions_match_libcst_on_this_repo():
    files = sorted(glob.glob(os.path.join(ROOT, "compilelint", "**", "*.py"), recursive=True))
    checked = 0
    for path in files:
        with open(path, "rb") as fh:
            module = cst.parse_module(fh.read())
        expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        for index, stmt in enumerate(module.body):
            nodes: list[cst.CSTNode] = []

            class Collect(cst.CSTVisitor):
                def on_visit(self, node: cst.CSTNode) -> bool:
                    if isinstance(node, INTERESTING):
                        nodes.append(node)
                    return True

            stmt.visit(Collect())
            got = positions_of(module, nodes, {index})
            for node in nodes:
                r = expected[node]
                assert got[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), (path, node)
                checked += 1
    assert checked > 5000
