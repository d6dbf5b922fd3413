"""LibCST nodes built from Python's tree (compilelint/analysis/ast_cst.py): the same nodes and fields as LibCST's own
parse, the same places as LibCST's PositionProvider, the same report as the analysis of LibCST's parse, and LibCST's
parse wherever the builder cannot stand in for it."""
from __future__ import annotations

import ast
import dataclasses
import textwrap
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from compilelint import analyzer, engine
from compilelint.analysis.ast_cst import Unsupported, build_module
from compilelint.config import Config
from compilelint.rules.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent
# What the analysis never reads: whitespace, comments and punctuation (analyzer._child_fields skips the same)
_LAYOUT = ("whitespace", "leading_lines", "comma", "semicolon", "trailing_whitespace", "header", "footer", "dot",
           "equal", "colon", "first_colon", "lbracket", "rbracket", "lbrace", "rbrace", "indent",
           "lines_after_decorators", "default_indent", "default_newline", "has_trailing_newline", "encoding")

EDGES = textwrap.dedent('''
    import os.path as osp, sys
    from . import a
    from ..pkg.mod import (b as c,
                           d)
    from x import *


    @decorator(arg=(1, 2))
    class Net(Base, metaclass=Meta, **extra):
        size: int = 3

        def forward(self, x, /, y=(1 + 2) * 3, *args, k: "int" = 4, **kwargs) -> "Tensor":
            if x: return y
            elif (x and
                  y  # why
                  and z):
                pass
            else:
                x = y; z = 1
            with (open(a) as f, open(b) as g):
                pass
            with (yield x):
                pass
            for i, (j, k) in enumerate(zip(a, b)):
                continue
            else:
                break
            while not x:
                x -= 1
            try:
                raise ValueError("x") from None
            except (KeyError, IndexError) as err:
                del x, y
            finally:
                global q
            t = x[1:2, ::3, a::], x[(1, 2)], x[..., None], x[a:b:]
            s = "a" "b" f"{x!r:>{w}}" ("c"
                                       "d")
            l = lambda a, *b, c=1, **d: (a, b)
            g = sum(v for v in x if v), [v async for v in y], {k: v for k, v in z}, {*a, *b}, {**a, 'k': 1}
            n = -x ** 2 @ y // 3 % 4 << 5 >> 6 & 7 | 8 ^ ~9, 1 if x is not None else 2, (w := 3), not x in y
            assert x, ("message"
                       "more")
            return (yield from g), await h(*args, **kwargs), 1j, 1.5e3, 0x1F, b"raw", r"\\d", True, None
''')


def _same(real, built, path: str = "") -> list[str]:
    """Where `built` differs from `real` in anything but layout (parentheses: in number)."""
    if isinstance(real, (list, tuple)) and isinstance(built, (list, tuple)):
        if len(real) != len(built):
            return [f"{path}: {len(real)} vs {len(built)} items"]
        return [d for i, (a, b) in enumerate(zip(real, built)) for d in _same(a, b, f"{path}[{i}]")]
    if type(real) is not type(built):
        return [f"{path}: {type(real).__name__} vs {type(built).__name__}"]
    if not isinstance(real, cst.CSTNode):
        return [] if real == built else [f"{path}: {real!r} vs {built!r}"]
    out = []
    for field in dataclasses.fields(real):
        if field.name.startswith(_LAYOUT):
            continue
        a, b = getattr(real, field.name), getattr(built, field.name)
        if field.name in ("lpar", "rpar"):
            if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
                a, b = len(a), len(b)
            else:
                a, b = type(a), type(b)
        out += _same(a, b, f"{path}.{type(real).__name__}.{field.name}")
    return out


def _places(real: cst.Module, built, source: bytes) -> list[str]:
    """Nodes whose recorded place differs from LibCST's syntactic position."""
    positions = MetadataWrapper(real, unsafe_skip_copy=True).resolve(PositionProvider)
    wrong = []

    def walk(a, b) -> None:  # noqa: ANN001
        if isinstance(a, (list, tuple)):
            for x, y in zip(a, b):
                walk(x, y)
            return
        if not isinstance(a, cst.CSTNode):
            return
        span = built.spans.get(id(b))
        if span is not None:
            line, col, end_line, end_col = span
            mine = (line, built.column(source, line, col), end_line, built.column(source, end_line, end_col))
            theirs = positions[a]
            if mine != (theirs.start.line, theirs.start.column, theirs.end.line, theirs.end.column):
                wrong.append(f"{type(a).__name__} {mine} vs {theirs}")
        for field in dataclasses.fields(a):
            if not field.name.startswith(_LAYOUT + ("lpar", "rpar")):
                walk(getattr(a, field.name), getattr(b, field.name))

    walk(real, built.module)
    return wrong


def _sources() -> list[tuple[str, bytes]]:
    files = sorted([*ROOT.glob("fixtures/**/*.py"), *ROOT.glob("tests/corpus/**/*.py"), *ROOT.glob("compilelint/**/*.py")])
    examples = [(f"{rule.code}-{i}", example.code.encode()) for rule in all_rules().values()
                for i, example in enumerate([*rule.bad, *rule.good])]
    return [("edges", EDGES.encode()), *[(str(f.relative_to(ROOT)), f.read_bytes()) for f in files], *examples]


def test_the_built_nodes_are_libcst_s_and_in_libcst_s_places():
    sources = _sources()
    assert len(sources) > 500
    left = []
    for name, source in sources:
        real = cst.parse_module(source)
        try:
            built = build_module(source, ast.parse(source))
        except Unsupported:
            left.append(name)
            continue
        assert _same(real, built.module) == [], name
        assert _places(real, built, source) == [], name
    assert len(left) <= 3, left  # (a `match` statement)


def test_the_edges_hold_what_they_claim():
    built = build_module(EDGES.encode(), ast.parse(EDGES))
    forward = built.module.body[4].body.body[1]
    assert type(forward.body.body[0].orelse) is cst.If  # the `elif`
    assert len(forward.params.posonly_params) == 2 and type(forward.params.star_arg) is cst.Param
    assert len(built.spans) > 100


def test_a_column_after_non_ascii_text_counts_characters():
    source = 'x = "é" + t.item()\n'.encode()
    built = build_module(source, ast.parse(source))
    call = built.module.body[0].body[0].value.right
    line, col, _, _ = built.spans[id(call)]
    assert (line, built.column(source, line, col)) == (1, 10) and col == 11


@pytest.mark.parametrize("source", [b"match x:\n    case 1:\n        pass\n", b"# -*- coding: latin-1 -*-\nx = 1\n",
                                    b"\xef\xbb\xbfx = 1\n", b"x = 1\ry = 2\n"])
def test_what_it_does_not_build_is_left_to_libcst(source):
    with pytest.raises(Unsupported):
        build_module(source, ast.parse(source))


def test_a_long_operator_chain_is_built_not_left_to_libcst(monkeypatch):
    """600 terms nest 600 BinOps: deeper than Python's default recursion limit for the builder, as for the walk."""
    source = ("def f(a):\n    return " + " + ".join(["a"] * 600) + "\n").encode()
    monkeypatch.setattr(analyzer, "_parse_cst", lambda source: pytest.fail("LibCST parsed the file"))
    result = analyzer.analyze_source("m.py", source, [rule() for rule in all_rules().values()], "m", False)
    assert result.summary is not None and "f" in result.summary.functions


def test_a_body_left_out_keeps_its_lines_and_is_named():
    source = b"def f(x):\n    return x.item()\n\n\nclass A:\n    def m(self):\n        return 1\n\n\nT = {\n    'a': 1,\n}\n"
    built = build_module(source, ast.parse(source), frozenset({"f", "A.m", "=T"}))
    assert sorted(built.blanked) == [("=T", 10, 12), ("A.m", 7, 7), ("f", 2, 2)]
    assert type(built.module.body[0].body.body[0].body[0]) is cst.Pass
    assert type(built.module.body[2].body[0]) is cst.Pass


def _report(paths: list[str], built: bool, monkeypatch) -> list[dict]:
    monkeypatch.setattr(analyzer, "BUILD_FROM_AST", built)
    return [f.to_dict() for f in engine.lint(paths, Config(targets=["all"]), jobs=1, cache_dir=None).findings]


@pytest.mark.parametrize("tree", ["fixtures", "tests/corpus"])
def test_the_report_is_the_same_as_on_libcst_s_parse(tree, monkeypatch):
    paths = [str(ROOT / tree)]
    assert _report(paths, True, monkeypatch) == _report(paths, False, monkeypatch)


def test_a_file_with_a_fix_is_analyzed_on_libcst_s_parse(monkeypatch):
    """A fix is text printed from nodes: with the builder's default whitespace it would rewrite the user's layout."""
    source = (b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self,x):\n"
              b"        y = None\n        if x.dim()>1:\n            y = x*2\n        return y\n")
    rules = [rule() for rule in all_rules().values()]
    parsed = []
    monkeypatch.setattr(analyzer, "_parse_cst", lambda source: parsed.append(source) or cst.parse_module(source))
    built = analyzer.analyze_source("m.py", source, rules, "m", False)
    assert parsed == [source]  # LibCST parsed the file for its fix
    monkeypatch.setattr(analyzer, "BUILD_FROM_AST", False)
    whole = analyzer.analyze_source("m.py", source, rules, "m", False)
    assert [f.fix for f, _, _ in built.findings if f.fix] == [f.fix for f, _, _ in whole.findings if f.fix] != []
