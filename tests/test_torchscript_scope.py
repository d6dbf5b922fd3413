"""TS rules report only what TorchScript compiles: the same constructs in a training loop, in a
`@torch.jit.ignore` / `@torch.jit.unused` method, in a plain script, or in a function only traced or
only `torch.compile`d are not reported; in `forward`, in what it calls, in `@torch.jit.export` methods
and in `@torch.jit.script` functions they are."""

from __future__ import annotations

import textwrap

from compilelint.config import Config
from compilelint.engine import lint

# One body with a construct for many TS rules; each line is tagged with the code it should raise.
BODY = '''
        try:  # TS111
            y = x * 2
        except RuntimeError:
            y = x
        print("y", y, sep=": ")  # TS120
        seen = {1, 2}  # TS116
        keep = [t for t in [x, y] if t.dim() == 2]  # TS117
        key = id(x)  # TS136
        a = x.numpy()  # TS126
        if random.random() < 0.5:  # TS128
            y = y + 1
        t0 = time.time()  # TS129
        if os.environ.get("DEBUG"):  # TS130
            y = y + 1
        logger.info("y")  # TS131
        if isinstance(x, dict):  # TS138
            y = y + 1
        z = copy.deepcopy(x)  # TS134
        w = x * EPS  # TS123
        s = f"{y.dim():03d}"  # TS121
        if (n := x.dim()) > 1:  # TS118
            y = y * n
        with torch.inference_mode():  # TS112
            y = y * 2
        p = x.data_ptr()  # TS133
        return y
'''

HEADER = '''
import copy
import logging
import os
import random
import time
import torch
logger = logging.getLogger(__name__)
EPS = 1e-5
'''


def _lint(tmp_path, source: str, name: str = "m.py"):
    path = tmp_path / name
    path.write_text(source)
    # TS170 (the call in forward that compiles a rejected helper) has tests of its own below
    result = lint([str(path)], Config(select=["TS"], ignore=["TS170"], root=str(tmp_path)), jobs=1)
    lines = source.splitlines()
    return [(f.code, lines[f.line - 1]) for f in result.findings]


def _lint_contexts(tmp_path, source: str):
    path = tmp_path / "m.py"
    path.write_text(source)
    result = lint([str(path)], Config(select=["TS"], ignore=["TS170"], root=str(tmp_path)), jobs=1)
    return sorted((f.code, f.context) for f in result.findings)


def _tags(source: str) -> list[str]:
    return sorted(line.split("# ")[-1] for line in source.splitlines() if line.rstrip().split("# ")[-1].startswith("TS1"))


def test_constructs_in_forward_are_reported(tmp_path):
    source = HEADER + "class M(torch.nn.Module):\n    def forward(self, x):" + BODY
    found = _lint(tmp_path, source)
    assert sorted(code for code, _ in found) == _tags(source)
    for code, line in found:
        assert line.rstrip().endswith("# " + code), (code, line)


def test_reached_helpers_exported_and_scripted_functions_are_reported(tmp_path):
    source = HEADER + textwrap.dedent('''
class M(torch.nn.Module):
    def forward(self, x):
        return self.helper(x)
    def helper(self, x):''') + BODY + textwrap.dedent('''
class N(torch.nn.Module):
    def forward(self, x):
        return x
    @torch.jit.export
    def extra(self, x):''') + BODY
    found = _lint(tmp_path, source)
    assert len(found) == 2 * len(_tags(HEADER + BODY))


def test_ignored_unused_training_loop_and_plain_script_are_not_reported(tmp_path):
    source = HEADER + textwrap.dedent('''
class M(torch.nn.Module):
    def forward(self, x):
        return self.debug(x) + self.slow(x)
    @torch.jit.ignore
    def debug(self, x):''') + BODY + '''
    @torch.jit.unused
    def slow(self, x):''' + BODY + '''
    def not_called(self, x):''' + BODY + textwrap.dedent('''
def train_step(model, x):''') + BODY + textwrap.dedent('''
def traced_only(x):''') + BODY + textwrap.dedent('''
def compiled_only(x):''') + BODY + textwrap.dedent('''
traced = torch.jit.trace(traced_only, (torch.randn(2),))
compiled = torch.compile(compiled_only)
if __name__ == "__main__":
    model = M()
    for step in range(3):
        try:
            loss = model(torch.randn(2)).sum()
        except RuntimeError:
            pass
        print("step", step, sep=": ")
        key = id(model)
        if random.random() < 0.5:
            t0 = time.time()
''')
    found = _lint_contexts(tmp_path, source)
    # TS199 (a note about torch.jit.trace itself) applies anywhere. Nothing else may be reported: the
    # @torch.jit.ignore/unused bodies are not compiled by TorchScript (torch.export does run them; EX704 and
    # EX705 report their `.numpy()` and `.data_ptr()` for export).
    # TS141 is right too: forward calls the @torch.jit.unused method, which raises when scripted code runs it.
    assert found == [("TS141", "M.forward"), ("TS199", "<module>")], found


def test_unused_call_is_reported_but_not_when_guarded(tmp_path):
    source = textwrap.dedent('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if not torch.jit.is_scripting():
            x = self.slow(x)
        return self.slow(x)
    @torch.jit.unused
    def slow(self, x):
        return x
''')
    found = _lint(tmp_path, source)
    assert found == [("TS141", "        return self.slow(x)")]


def test_code_torchscript_skips_under_is_scripting_guards(tmp_path):
    # TorchScript parses the whole body (syntax like `try` fails everywhere) but emits only the live side
    # of `torch.jit.is_scripting()`: calls and lookups there, and the helpers they reach, are not compiled.
    source = textwrap.dedent('''
import torch
import numpy as np
def py_only(x):
    key = id(x)
    return np.asarray(x)
def shared(x):
    return x * float(np.sqrt(2.0))
class M(torch.nn.Module):
    def forward(self, x):
        if not torch.jit.is_scripting():
            y = py_only(x)
            p = x.data_ptr()
            s = {1, 2}
        if torch.jit.is_scripting():
            y = x
        else:
            y = np.abs(x)
        y = shared(x)
        if torch.jit.is_scripting():
            return y
        return torch.from_numpy(np.abs(x.numpy()))
''')
    found = _lint_contexts(tmp_path, source)
    # The set literal is syntax (reported); `shared` is reached from live code (reported); `py_only` is
    # reached only from the guarded branch, numpy calls there are not reported, nor are `x.data_ptr()` and
    # `x.numpy()` in the guarded branches (torch.export runs those: EX704/EX705 report them for export).
    assert found == [("TS116", "M.forward"), ("TS125", "shared")], found
    ex = lint([str(tmp_path / "m.py")], Config(select=["EX704", "EX705"], root=str(tmp_path)), jobs=1).findings
    assert {f.code for f in ex} == {"EX704", "EX705"}


def test_decorator_expressions_are_not_compiled(tmp_path):
    source = textwrap.dedent('''
import functools
import torch
NAME = "head"
def register(name):
    def wrap(fn):
        return fn
    return wrap
class M(torch.nn.Module):
    @register(NAME)
    def forward(self, x):
        return x * 2
''')
    assert _lint_contexts(tmp_path, source) == []


def test_module_properties_are_compiled_and_helpers_reported_at_the_call(tmp_path):
    # torch.jit.script compiles every property of a module (a mixin's too), used or not; a helper it rejects is
    # reported where forward calls it (TS170), as TorchScript names that call
    source = textwrap.dedent('''
import torch
class Mixin:
    @property
    def names(self):
        def collect(m):  # TS109
            return [m]
        return collect(self)
def helper(x):
    try:  # TS111
        return x * 2
    except RuntimeError:
        return x
class M(Mixin, torch.nn.Module):
    def forward(self, x):
        y = x + 1
        return helper(y)  # TS170
class Plain:
    @property
    def names(self):
        def collect(m):
            return [m]
        return collect(self)
''')
    path = tmp_path / "m.py"
    path.write_text(source)
    result = lint([str(path)], Config(select=["TS"], root=str(tmp_path)), jobs=1)
    lines = source.splitlines()
    found = sorted((f.code, lines[f.line - 1].strip()) for f in result.findings)
    assert found == sorted((line.rsplit("# ", 1)[1], line.strip()) for line in lines if "# TS" in line)



FOLDED = '''
import torch


class Head(torch.nn.Module):
    def __init__(self, proj=None):
        super().__init__()
        self.proj = proj

    def forward(self, x):
        if self.proj is not None:
            x = torch.from_numpy(x.numpy())  # TS126 where it compiles
        return x * 2
'''


def test_a_branch_torchscript_drops_when_compiling_is_not_reported(tmp_path):
    """`self.proj` is None with `__init__`'s defaults, so TorchScript types it NoneType and drops the `is not None`
    branch when compiling: the module scripts (checked here) and nothing in that branch is claimed. Built with a
    module instead, the branch compiles and TorchScript rejects it, as TS126 says of a default that is not None."""
    import importlib.util

    import pytest

    torch = pytest.importorskip("torch")
    findings = _lint(tmp_path, FOLDED)
    assert findings == []
    path = tmp_path / "folded.py"
    path.write_text(FOLDED)
    spec = importlib.util.spec_from_file_location("folded", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    scripted = torch.jit.script(module.Head())
    assert torch.equal(scripted(torch.ones(2)), torch.full((2,), 2.0))
    with pytest.raises(Exception):
        torch.jit.script(module.Head(torch.nn.Identity()))
    built_with_module = FOLDED.replace("proj=None", "proj=torch.nn.Identity()")
    assert "TS126" in {code for code, _ in _lint(tmp_path, built_with_module, "built.py")}
