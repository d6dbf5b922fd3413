"""The tables in compilelint/analysis/script_support.py, checked entry by entry on real torch.

Each entry is a claim ("TorchScript rejects this"); a small module using it must fail to script (or, for
the supported context managers, must script). One scripting per entry, a few seconds in all.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import pytest

from compilelint.analysis import script_support as ss
from compilelint.rules.torchscript.ts112_context_manager import _KNOWN as KNOWN_CMS
from compilelint.rules.torchscript.ts142_stdlib_call import STDLIB_UNSUPPORTED

torch = pytest.importorskip("torch")

_n = iter(range(10**6))


def _script(tmp_path, header: str, body: str, call: bool = False) -> str | None:
    """Script `forward` with `body`; the error's first line, or None when it scripts (and runs)."""
    name = f"ts_table_{next(_n)}"
    path = tmp_path / f"{name}.py"
    path.write_text(f"import torch\n{header}\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                    + "".join(f"        {line}\n" for line in body.splitlines()) + "        return x\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scripted = torch.jit.script(module.M())
            if call:
                scripted(torch.randn(2, 3))
        except Exception as err:  # the verdict is the point
            return f"{type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}"
    return None


MATH_ARGS = {"cbrt": "8.0", "comb": "4, 2", "dist": "[1.0], [2.0]", "exp2": "2.0", "fsum": "[1.0]", "hypot": "3.0, 4.0",
             "isclose": "1.0, 2.0", "isqrt": "4", "lcm": "4, 2", "log2": "2.0", "nextafter": "2.0, 3.0", "perm": "4, 2",
             "prod": "[1, 2]", "trunc": "2.5", "ulp": "2.0"}


def test_math_table_matches_torch_builtin_table():
    import math

    import torch.jit._builtins as builtins

    supported = {f.__name__ for f, _ in builtins._builtin_ops if getattr(f, "__module__", None) == "math"
                 or f in vars(math).values()}
    assert not (ss.MATH_UNSUPPORTED & supported)
    assert set(MATH_ARGS) == set(ss.MATH_UNSUPPORTED)


@pytest.mark.parametrize("name", sorted(ss.MATH_UNSUPPORTED))
def test_math_unsupported(tmp_path, name):
    if not hasattr(__import__("math"), name):
        pytest.skip(f"math.{name} does not exist on this Python")
    assert _script(tmp_path, "import math", f"v = math.{name}({MATH_ARGS[name]})") is not None


BUILTIN_CALLS = {"vars": "vars(self)", "dir": "dir(self)", "setattr": 'setattr(self, "training", False)',
                 "delattr": 'delattr(self, "training")', "id": "id(x)", "open": 'open("/nonexistent")',
                 "iter": "iter([1, 2])", "next": "next(iter([1, 2]))", "callable": "callable(self)", "repr": "repr(1)",
                 "ascii": 'ascii("a")', "format": 'format(1.5, ".2f")', "issubclass": "issubclass(int, int)",
                 "globals": "globals()", "locals": "locals()", "eval": 'eval("1")', "exec": 'exec("1")',
                 "input": "input()", "breakpoint": "breakpoint()", "map": "list(map(abs, [1, 2]))",
                 "filter": "list(filter(None, [1, 2]))", "reversed": "list(reversed([1, 2]))", "bytes": "bytes(1)",
                 "memoryview": 'memoryview(b"a")', "object": "object()"}


def test_builtin_table_has_examples():
    assert set(BUILTIN_CALLS) == set(ss.BUILTIN_UNSUPPORTED)


@pytest.mark.parametrize("name", sorted(ss.BUILTIN_UNSUPPORTED))
def test_builtin_unsupported(tmp_path, name):
    assert _script(tmp_path, "", f"v = {BUILTIN_CALLS[name]}", call=True) is not None


@pytest.mark.parametrize("name", sorted(ss.ISINSTANCE_UNSUPPORTED | ss.ISINSTANCE_BARE_GENERICS))
def test_isinstance_unsupported(tmp_path, name):
    header = "import typing\nimport collections.abc"
    assert _script(tmp_path, header, f"if isinstance(x, {name}):\n    x = x * 2") is not None


@pytest.mark.parametrize("name", sorted(ss.CUDA_UNSUPPORTED))
def test_cuda_lookup_unsupported(tmp_path, name):
    arg = "0" if name in ("get_device_name", "get_device_capability") else ""
    assert _script(tmp_path, "", f"v = torch.cuda.{name}({arg})") is not None


CM_CALLS = {"torch.no_grad": "torch.no_grad()", "torch.autocast": 'torch.autocast("cpu", enabled=False)',
            "torch.amp.autocast": 'torch.amp.autocast("cpu", enabled=False)',
            "torch.cuda.amp.autocast": "torch.cuda.amp.autocast(enabled=False)",
            "torch.cpu.amp.autocast": "torch.cpu.amp.autocast(enabled=False)",
            "torch.autograd.profiler.record_function": 'torch.autograd.profiler.record_function("a")',
            "torch.profiler.record_function": 'torch.profiler.record_function("a")',
            "torch.enable_grad": "torch.enable_grad()", "torch.inference_mode": "torch.inference_mode()",
            "torch.set_grad_enabled": "torch.set_grad_enabled(False)", "torch.device": 'torch.device("cpu")',
            "torch.nn.attention.sdpa_kernel": "torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH)",
            "contextlib.nullcontext": "contextlib.nullcontext()", "contextlib.suppress": "contextlib.suppress(ValueError)",
            "warnings.catch_warnings": "warnings.catch_warnings()", "open": 'open("/nonexistent")'}


@pytest.mark.parametrize("name", sorted(ss.SUPPORTED_CONTEXT_MANAGERS))
def test_supported_context_manager_scripts(tmp_path, name):
    assert _script(tmp_path, "import torch.nn.attention", f"with {CM_CALLS[name]}:\n    x = x * 2", call=True) is None


@pytest.mark.parametrize("name", sorted(KNOWN_CMS))
def test_unsupported_context_manager_fails(tmp_path, name):
    header = "import contextlib\nimport warnings\nimport torch.nn.attention"
    assert _script(tmp_path, header, f"with {CM_CALLS[name]}:\n    x = x * 2") is not None


STDLIB_CALLS = {"itertools.": ("import itertools", "v = list(itertools.chain([1], [2]))"),
                "functools.": ("import functools", "v = functools.reduce(max, [1, 2])"),
                "operator.": ("import operator", "v = operator.mul(2, 3)"),
                "json.": ("import json", "v = json.dumps(1)"),
                "pickle.": ("import pickle", "v = pickle.dumps(1)"),
                "re.": ("import re", 'v = re.match("a", "a")'),
                "os.path.": ("import os", 'v = os.path.join("a", "b")'),
                "os.getpid": ("import os", "v = os.getpid()"),
                "sys.exit": ("import sys", "sys.exit(0)"),
                "collections.defaultdict": ("import collections", "v = collections.defaultdict(list)"),
                "scipy.": ("import scipy.special", "v = scipy.special.expit(x)")}


@pytest.mark.parametrize("prefix", sorted(STDLIB_UNSUPPORTED))
def test_stdlib_unsupported(tmp_path, prefix):
    header, body = STDLIB_CALLS[prefix]
    if prefix == "scipy.":
        pytest.importorskip("scipy.special")
    assert _script(tmp_path, header, body) is not None


def _export_rules():
    from compilelint.rules.registry import all_rules

    return [pytest.param(rule, i, id=f"{code}-bad{i}") for code, rule in all_rules().items()
            if code.startswith("TS1") and "export" in rule.targets for i in range(len(rule.bad))]


@pytest.mark.parametrize("rule,index", _export_rules())
def test_export_claim(rule, index, tmp_path):
    """TS rules that also target `export`: torch.export.export(strict=False) must fail on their bad examples,
    and pass on their good ones."""
    from tests.harness import load_entry, write_example

    def exports(example, kind):
        path = write_example(tmp_path, rule, kind, index, example)
        obj, inputs = load_entry(path, example)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                torch.export.export(obj, inputs[0], strict=False)
            except Exception as err:  # the verdict is the point
                return f"{type(err).__name__}: {str(err).strip().splitlines()[0] if str(err).strip() else ''}"
        return None

    assert exports(rule.bad[index], "bad") is not None
    for good in rule.good:
        assert exports(good, "good") is None
