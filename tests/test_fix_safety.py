"""Safe fixes are safe: `--fix` changes no parameter list, keeps the file's formatting, and annotates only where
the body (and the file's calls) show the type. The patterns are those `--fix` once got wrong on real libraries:
`) -> Tensor:` of a multi-line method signature moved to column 0, the keyword-only `*` removed, a
`torch.Generator` parameter annotated `Optional[torch.Tensor]` (benchmarks/fix_safety.py runs the same checks
on copies of kornia, MONAI and diffusers)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

import libcst as cst
import pytest

from benchmarks.fix_safety import parameter_lists
from compilelint.config import Config
from compilelint.engine import lint
from compilelint.fix import replacement_in_place

MODEL = textwrap.dedent('''\
    import torch
    from typing import Optional


    class Decoder(torch.nn.Module):
        def decode(
            self, z: torch.Tensor, return_dict: bool = True, generator=None
        ) -> torch.Tensor:
            return z + torch.randn(z.shape, generator=generator)

        def forward(
            self,
            hidden_states: torch.Tensor,
            *,
            drop_cls_token: bool = False,
            rescale=False,
            mask=None,
        ) -> torch.Tensor:
            if mask is not None:
                hidden_states = hidden_states.masked_fill(mask.bool(), 0.0)
            if rescale:
                hidden_states = hidden_states * 2
            return self.decode(hidden_states)


    def crop(x, n):
        return x[:n]


    @torch.jit.script
    def head(x, /, k=2):
        return crop(x, torch.tensor(k)).topk(k).values
''')


def run_fix(path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "compilelint", str(path), "--fix", "--targets", "all", "--no-cache",
                           "--isolated", "-j1", *flags], capture_output=True, text=True, timeout=120)


def fixes(path) -> dict[str, list[tuple[str, bool]]]:
    out: dict[str, list[tuple[str, bool]]] = {}
    for f in lint([str(path)], Config(root=str(path.parent), targets=("all",)), jobs=1).findings:
        if f.fix is not None:
            out.setdefault(f.code, []).append((f.fix.text.strip().rstrip(","), f.fix.safe))
    return out


def test_safe_fixes_change_no_parameter_list_and_keep_indentation(tmp_path):
    target = tmp_path / "model.py"
    target.write_text(MODEL)
    proc = run_fix(target)
    fixed = target.read_text()
    assert fixed != MODEL, proc.stderr  # the safe annotations were applied
    assert parameter_lists(fixed) == parameter_lists(MODEL)
    # every line a fix touched keeps its indentation: the signature lines still start where they did
    assert "    ) -> torch.Tensor:" in fixed and "\n) -> torch.Tensor:" not in fixed
    assert "        rescale: bool = False," in fixed and "        *,\n" in fixed
    assert "def head(x, /, k: int = 2):" in fixed
    ast.parse(fixed)


def test_unsafe_fixes_are_applied_only_when_asked(tmp_path):
    target = tmp_path / "model.py"
    target.write_text(MODEL)
    run_fix(target, "--unsafe-fixes")
    fixed = target.read_text()
    assert parameter_lists(fixed) != parameter_lists(MODEL)  # `*` and `/` gone: the signature changed
    assert "        *,\n" not in fixed and "def head(x, k" in fixed
    assert "    ) -> torch.Tensor:" in fixed
    ast.parse(fixed)


def test_an_annotation_is_safe_only_where_the_code_shows_the_type(tmp_path):
    target = tmp_path / "model.py"
    target.write_text(MODEL)
    found = fixes(target)
    ta203 = dict(found["TA203"])
    # `generator` is passed on to torch.randn: nothing says it is a tensor (it is a torch.Generator)
    assert ta203["generator: Optional[torch.Tensor] = None"] is False
    # `mask.bool()`: only a tensor has that method
    assert ta203["mask: Optional[torch.Tensor] = None"] is True
    # the file calls `crop(x, torch.tensor(k))`: the callers pass a tensor where the body slices with an int
    assert found["TA202"] == [("n: int", False)]
    assert all(not safe for _, safe in found["TS103"] + found["TS104"])  # signature changes


@pytest.mark.parametrize("source, first_line, span", [
    # a method's multi-line signature: LibCST writes the `)` line's indentation from the enclosing class block
    ("class A:\n    def f(\n        self, x=1\n    ) -> int:\n        return x\n", "    def f(", "self, x=1\n    "),
    ("if True:\n    def f(self,\n          x=1):\n        return x\n", "    def f(self,", "self,\n          x=1"),
    ("def f(x, y=2):\n    return x\n", "def f(x, y=2):", "x, y=2"),
])
def test_a_replacement_reads_as_the_file_does_around_it(source, first_line, span):
    module = cst.parse_module(source)
    fn = next(n for n in _walk(module) if isinstance(n, cst.FunctionDef))
    assert replacement_in_place(module, fn.params, fn.params, span, first_line) == span
    renamed = fn.params.with_changes(params=[p.with_changes(name=cst.Name(p.name.value.upper()))
                                             for p in fn.params.params])
    assert replacement_in_place(module, fn.params, renamed, span, first_line) == span.replace("x", "X").replace(
        "self", "SELF").replace("y", "Y")


def test_a_node_that_does_not_come_out_as_the_file_has_it_gets_no_fix():
    module = cst.parse_module("def f(x, y=2):\n    return x\n")
    fn = module.body[0]
    assert replacement_in_place(module, fn.params, fn.params, "x,  y=2", "def f(x,  y=2):") is None


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def test_every_rule_that_offers_a_fix_says_how_safe_it_is():
    import inspect
    import re

    from compilelint.rules.registry import all_rules

    # `ctx.report(..., fix=...)` at the call's own level (not `message.format(fix=...)` inside it)
    reports_a_fix = re.compile(r"report\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?\bfix=")

    missing = []
    for rule in all_rules().values():
        source = inspect.getsource(rule)
        offers = rule.has_fix or "def fix_for" in source or reports_a_fix.search(source)
        if offers and not rule.doc.fix_safety:
            missing.append(rule.code)
    assert not missing, f"no fix_safety in the docs of {missing}"


def test_the_runtime_check_reports_what_the_fixed_copy_lost(tmp_path):
    """benchmarks/fix_runtime.py compares a model's two runs: a class that no longer scripts, a compile that now
    fails and other eager outputs are regressions; what failed before and still fails is not."""
    torch = pytest.importorskip("torch")
    from benchmarks.fix_runtime import compare
    from benchmarks.realworld.registry import Entry

    entry = Entry(name="lib_models:make_net", library="lib", package="lib", path="m.py", factory="make_net", doc="")
    fixed = tmp_path / "fixed"
    (fixed / "lib").mkdir(parents=True)

    def run(tag: str, scripts: bool, compiles: bool, out: float) -> dict:
        path = tmp_path / f"{tag}.pt"
        torch.save([[torch.full((2,), out)]], path)
        return {"stage": "done", "outputs": str(path), "package_dir": str(fixed / "lib") if tag != "before" else "",
                "script": {"lib.Net": {"ok": True, "root": True, "error": ""},
                           "lib.Block": {"ok": scripts, "root": False, "error": "" if scripts else "RuntimeError: x"},
                           "lib.Old": {"ok": False, "root": False, "error": "RuntimeError: y"}},
                "compile": {"ok": compiles, "error": "" if compiles else "Unsupported: z"}}

    same = compare(entry, run("before", True, True, 1.0), run("same", True, True, 1.0), str(fixed))
    assert same["regressions"] == [] and same["script_ok"] == (2, 2, 3) and same["eager_same"]
    lost = compare(entry, run("before", True, True, 1.0), run("lost", False, False, 2.0), str(fixed))
    assert [r.split(":")[0] for r in lost["regressions"]] == ["lib.Block no longer scripts", "no longer compiles",
                                                             "eager outputs changed"]
