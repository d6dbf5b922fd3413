"""Bodies no compile path reaches, left out of the analysis (compilelint/analysis/unreached.py): what is left out,
that every other line keeps its place, and that the report is the same as with nothing left out."""
from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import libcst
import pytest

from compilelint import engine
from compilelint.analysis.ast_cst import build_module
from compilelint.analysis.unreached import KEPT_NAMES, outline, unreached
from compilelint.config import Config
from compilelint.rules.registry import all_rules

ROOT = Path(__file__).resolve().parent.parent

MODEL = textwrap.dedent('''
    import torch
    from torch import nn


    def helper(x):
        return x.item()


    def make_block(width):
        return Block(width)


    def unused_factory(pretrained=False, **kwargs):
        model = build_model(Net, **kwargs)
        if pretrained:
            model.load_state_dict(load("weights.pt"))
        return model


    def compiled_elsewhere(x):
        return x + 1


    def starts_a_compile():
        return torch.compile(compiled_elsewhere)


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.proj = nn.Linear(width, width)
            self.apply(self._init_weights)

        def _init_weights(self, module):
            nn.init.zeros_(module.weight)

        def forward(self, x):
            return self.proj(x)


    class Net(nn.Module):
        def __init__(self, width=4):
            super().__init__()
            self.block = make_block(width)
            self.cache = []

        def reset(self):
            self.cache.clear()

        def export_layers(self):
            return [self.block]

        def forward(self, x):
            if helper(x) > 0:
                return self.block(x)
            return x

        def one_line(self): return 1


    default_cfgs = dict(
        net=dict(url="",
                 mean=(0.5, 0.5, 0.5)),
    )
''')


def test_a_name_no_kept_code_writes_is_blanked():
    blanks = unreached({"m.py": outline(MODEL)}, KEPT_NAMES)["m.py"]
    # model factories, methods nothing reaches, and a module-level table nothing reads
    assert {"unused_factory", "Net.export_layers", "Net.one_line", "=default_cfgs"} <= blanks
    # forward, __init__, what forward calls, what __init__ stores (a factory's returns), text that stores on self,
    # what a compile call names; and a method only __init__ runs on self is unreached
    assert not blanks & {"helper", "make_block", "Block.forward", "Net.forward", "Block.__init__", "Net.reset",
                         "starts_a_compile", "compiled_elsewhere"}
    assert "Block._init_weights" in blanks


def test_a_word_in_a_string_or_comment_names_nothing():
    source = MODEL.replace("default_cfgs = dict(", "# unused_factory\nnames = ['Net.export_layers', \"\"\"\nunused_factory\n\"\"\"]\ndefault_cfgs = dict(")
    assert "unused_factory" in unreached({"m.py": outline(source)}, KEPT_NAMES)["m.py"]


def test_a_renamed_import_names_what_it_renames():
    user = "from m import unused_factory as build\n\nclass User(nn.Module):\n    def forward(self, x):\n        return build()(x)\n"
    blanks = unreached({"m.py": outline(MODEL), "u.py": outline(user)}, KEPT_NAMES)
    assert "unused_factory" not in blanks["m.py"]


def test_a_gate_word_in_module_code_keeps_the_whole_file():
    source = "from torch.jit import script as s\n" + MODEL
    assert "m.py" not in unreached({"m.py": outline(source)}, KEPT_NAMES)


def test_what_is_left_out_keeps_every_other_line_in_its_place():
    source = MODEL.encode()
    keys = unreached({"m.py": outline(MODEL)}, KEPT_NAMES)["m.py"]
    built = build_module(source, ast.parse(source), keys)
    assert {key for key, _, _ in built.blanked} == keys - {"Net.one_line"}  # a body on its signature's line stays
    whole = build_module(source, ast.parse(source))
    assert len(built.module.body) == len(whole.module.body)  # each statement stays one
    for kept, left in zip(whole.module.body, built.module.body):
        assert whole.spans[id(kept)][:2] == built.spans[id(left)][:2]
    factory = next(s for s in built.module.body if type(s) is libcst.FunctionDef and s.name.value == "unused_factory")
    assert [type(s.body[0]) for s in factory.body.body] == [libcst.Pass]


def _report(paths: list[str], blank: bool, monkeypatch, blanks=None) -> list[dict]:
    monkeypatch.setattr(engine, "BLANK_UNREACHED", blank)
    if blanks is not None:
        monkeypatch.setattr(engine, "unreached_bodies", lambda texts, codes: blanks)
    result = engine.lint(paths, Config(targets=["all"]), jobs=1)
    return [f.to_dict() for f in result.findings]


@pytest.mark.parametrize("tree", ["fixtures", "tests/corpus"])
def test_the_report_is_the_same_with_unreached_bodies_left_out(tree, monkeypatch):
    paths = [str(ROOT / tree)]
    files, _ = engine.discover(paths, [], str(ROOT), False)
    texts = [(path, text) for path, _, _, text in engine._sources(files, 4_000_000)]
    left_out = engine.unreached_bodies(texts, engine.selected_rules(Config(targets=["all"])))
    assert sum(len(keys) for keys in left_out.values()) >= 5  # the comparison is not between two whole runs
    assert _report(paths, True, monkeypatch) == _report(paths, False, monkeypatch)


def test_a_reached_body_left_out_by_a_wrong_guess_is_analyzed_again(tmp_path, monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(MODEL)
    whole = _report([str(path)], False, monkeypatch)
    assert any(f["context"] == "helper" for f in whole)  # the .item() forward reaches through helper
    wrong = {str(path): frozenset({"helper", "Net.forward", "unused_factory"})}
    assert _report([str(path)], True, monkeypatch, blanks=wrong) == whole


ANYWHERE = [rule for rule in all_rules().values() if rule.applies_to == "anywhere"]


def _region_at(source: str, line: int) -> str | None:
    """The key ("f", "Cls.m", "=name") of the top-level function, method or assignment holding `line`."""
    for stmt in ast.parse(source).body:
        if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            continue
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return stmt.name
        if isinstance(stmt, ast.ClassDef):
            held = [m.name for m in stmt.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and m.lineno <= line <= (m.end_lineno or m.lineno)]
            return f"{stmt.name}.{held[0]}" if held else None
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
            return f"={target.id}" if isinstance(target, ast.Name) else None
    return None


@pytest.mark.parametrize("rule", ANYWHERE, ids=lambda rule: rule.code)
def test_every_rule_that_reports_anywhere_says_where_and_keeps_its_findings(rule, tmp_path, monkeypatch):
    """`Rule.body_gate` is a claim: each bad example's findings sit in module code or in a region whose text writes a
    word of it (so such a region is never left out), and they are the same with unreached bodies left out."""
    assert rule.body_gate, f"{rule.code} reports anywhere and names no body_gate: nothing would be left out"
    for i, example in enumerate(rule.bad):
        path = tmp_path / f"bad{i}.py"
        source = example.code + "\n\ndef unused_factory(pretrained=False):\n    return M()\n"
        path.write_text(source)
        config = Config(targets=["all"], select=[rule.code])
        for blank in (False, True):
            monkeypatch.setattr(engine, "BLANK_UNREACHED", blank)
            found = [f.to_dict() for f in engine.lint([str(path)], config, jobs=1).findings]
            if not blank:
                whole = found
        assert whole and found == whole, (rule.code, i)
        regions = {region.key: region for region in outline(source).regions}
        for finding in whole:
            key = _region_at(source, finding["line"])
            assert key not in regions or regions[key].words & rule.body_gate, (rule.code, i, key)


def test_a_build_of_a_class_in_code_nothing_names_still_counts(tmp_path, monkeypatch):
    """TS169 asks whether any build of the class anywhere passes the parameter that sets the attribute
    (`RepoIndex.builds_of`): a factory nothing calls that builds the class with `**kwargs` is left out, and its
    build still counts (analysis/ast_cst.py records the builds of what it leaves out)."""
    rule = all_rules()["TS169"]
    for i, example in enumerate(rule.bad):
        path = tmp_path / f"bad{i}.py"
        path.write_text(example.code + "\n\ndef unused_factory(**kwargs):\n    model = M(**kwargs)\n    return model\n")
        reports = []
        for blank in (False, True):
            monkeypatch.setattr(engine, "BLANK_UNREACHED", blank)
            config = Config(targets=["all"], select=["TS169"])
            reports.append([f.to_dict() for f in engine.lint([str(path)], config, jobs=1).findings])
        assert reports[0] == reports[1], i
