"""What a compiled function reaches across calls, files and objects (compilelint/analysis/scope.py, reach.py).

Each case is a small package: lint must report the helper's graph break, and a real torch.compile of the model
must break at that same line, which shows the compiler runs the reached code.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from compilelint.config import Config
from compilelint.engine import lint

HELPERS = '''
import functools
import torch


def gelu_scale(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum().item()  # <-


def relu_scale(x: torch.Tensor) -> torch.Tensor:
    return x * x.max().item()  # <-


ACTS = {"gelu": gelu_scale, "relu": relu_scale}


class Decoder:
    def __init__(self, k: int) -> None:
        self.k = k

    def decode(self, x: torch.Tensor) -> torch.Tensor:
        return x * x.mean().item()  # <-

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        return x * x.min().item()  # <-


def logged(fn):
    @functools.wraps(fn)
    def wrapper(x):
        print("scaling")  # <-
        return fn(x)
    return wrapper
'''

CASES = {
    "attribute_method": '''
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.decoder = Decoder(3)

            def forward(self, x):
                return self.decoder.decode(x)
    ''',
    "attribute_annotation": '''
        class Model(torch.nn.Module):
            decoder: Decoder

            def __init__(self, decoder=None):
                super().__init__()
                self.decoder = decoder or make_decoder()

            def forward(self, x):
                return self.decoder.decode(x)

        def make_decoder():
            return Decoder(2)
    ''',
    "attribute_called": '''
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.post = Decoder(3)

            def forward(self, x):
                return self.post(x)
    ''',
    "local_instance": '''
        class Model(torch.nn.Module):
            def forward(self, x):
                decoder = Decoder(2)
                return decoder.decode(x)
    ''',
    "registry_by_config": '''
        class Model(torch.nn.Module):
            def __init__(self, act="relu"):
                super().__init__()
                self.act = ACTS[act]

            def forward(self, x):
                return self.act(x)
    ''',
    "registry_in_forward": '''
        class Model(torch.nn.Module):
            def __init__(self, act="gelu"):
                super().__init__()
                self.name = act

            def forward(self, x):
                return ACTS[self.name](x)
    ''',
    "function_argument": '''
        def apply_fn(x, fn):
            return fn(x)

        class Model(torch.nn.Module):
            def forward(self, x):
                return apply_fn(x, fn=gelu_scale)
    ''',
    "decorator": '''
        @logged
        def scale(x):
            return x + 1

        class Model(torch.nn.Module):
            def forward(self, x):
                return scale(x)
    ''',
    "super_forward": '''
        class Base(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.decoder = Decoder(1)

            def forward(self, x):
                return self.decoder.decode(x)

        class Model(Base):
            def forward(self, x):
                return super().forward(x) + 1
    ''',
    "annotated_parameter": '''
        class Model(torch.nn.Module):
            def __init__(self, decoder: Decoder = Decoder(5)):
                super().__init__()
                self.decoder = decoder

            def forward(self, x):
                return self.decoder.decode(x)
    ''',
    "module_list_elements": '''
        class Block(torch.nn.Module):
            def forward(self, x):
                return x

            def refine(self, x):
                return relu_scale(x)

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = torch.nn.ModuleList([Block() for _ in range(2)])

            def forward(self, x):
                for block in self.blocks:
                    x = block.refine(x)
                return x
    ''',
    "factory_attribute": '''
        def make_decoder(kind):
            if kind == "plain":
                return Decoder(1)
            return Decoder(2)

        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.decoder = make_decoder("plain")

            def forward(self, x):
                return self.decoder.decode(x)
    ''',
    "generic_base": '''
        from typing import Generic, TypeVar

        T = TypeVar("T")

        class Mixin(Generic[T]):
            def forward(self, x):
                return relu_scale(x)

        class Model(Mixin[int], torch.nn.Module):
            pass
    ''',
    "override_called_by_base": '''
        class Base(torch.nn.Module):
            def forward(self, x):
                return self.head(x)

            def head(self, x):
                return x

        class Model(Base):
            def head(self, x):
                return relu_scale(x)
    ''',
    "attribute_set_in_subclass": '''
        class Base(torch.nn.Module):
            def forward(self, x):
                return self.decoder.decode(x)

        class Model(Base):
            def __init__(self):
                super().__init__()
                self.decoder = Decoder(4)
    ''',
}


def _write(tmp_path: Path, model: str) -> tuple[Path, str]:
    name = f"reach_{uuid.uuid4().hex[:8]}"
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPERS)
    head = f"import torch\nfrom {name}.helpers import ACTS, Decoder, gelu_scale, logged, relu_scale\n"
    (pkg / "model.py").write_text(head + textwrap.dedent(model))
    return pkg, name


def _marked(pkg: Path) -> set[int]:
    return {i for i, line in enumerate((pkg / "helpers.py").read_text().splitlines(), 1) if line.endswith("# <-")}


def _compiled_breaks(tmp_path: Path, name: str, pkg: Path) -> set[int]:
    """The lines of helpers.py at which torch.compile breaks the model's graph."""
    from compilelint.runtime_probe import observe

    sys.path.insert(0, str(tmp_path))
    try:
        model = importlib.import_module(f"{name}.model").Model()
    finally:
        sys.path.remove(str(tmp_path))
    import torch

    report = observe.run_dynamo(model, [(torch.randn(3, 4),)])
    helper = str(pkg / "helpers.py")
    lines = set()
    for event in report.breaks:
        for filename, lineno in [(event.filename, event.lineno), *event.user_frames]:
            if filename == helper:
                lines.add(lineno)
    return lines


@pytest.mark.parametrize("case", sorted(CASES))
def test_reached_helper_is_reported_where_torch_compile_breaks(tmp_path, case):
    pkg, name = _write(tmp_path, CASES[case])
    result = lint([str(pkg)], Config(select=["GB401", "GB405"]), jobs=1)
    reported = {f.line for f in result.findings if Path(f.path).name == "helpers.py"}
    broke = _compiled_breaks(tmp_path, name, pkg) & _marked(pkg)
    assert broke, "torch.compile ran none of the marked helper lines"
    # A registry indexed by a config value may run any of its members: each is reported, the one this config
    # chose among them.
    assert broke <= reported <= _marked(pkg), (reported, broke)
    if not case.startswith("registry"):
        assert reported == broke, (reported, broke)


def test_unreached_helpers_stay_out_of_scope(tmp_path):
    pkg, _ = _write(tmp_path, '''
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.decoder = Decoder(3)

            def forward(self, x):
                return x + 1
    ''')
    result = lint([str(pkg)], Config(select=["GB401", "GB405"]), jobs=1)
    assert [f for f in result.findings if Path(f.path).name == "helpers.py"] == []


def test_findings_name_the_entry_point_and_calls_that_reach_them(tmp_path):
    import json
    import subprocess

    pkg, _ = _write(tmp_path, '''
        def postprocess(x):
            return decode(x)

        def decode(x):
            return gelu_scale(x)

        class Detector(torch.nn.Module):
            def forward(self, x):
                return postprocess(x)
    ''')
    result = lint([str(pkg)], Config(select=["GB401"]), jobs=1)
    (finding,) = [f for f in result.findings if f.line == 7]
    assert [(Path(r.path).name, r.line, r.message) for r in finding.reached_from] == [
        ("model.py", 11, "entry point: Detector.forward"), ("model.py", 4, "calls postprocess"),
        ("model.py", 7, "calls decode")]
    run = subprocess.run([sys.executable, "-m", "compilelint", "check", "--isolated", "--no-cache", "--select",
                          "GB401", "--explain-scope", str(pkg)], capture_output=True, text=True, timeout=120)
    assert "reached from Detector.forward" in run.stdout and "-> decode (" in run.stdout, run.stdout
    # linted by a relative path, the chain's places read as the findings' own paths do
    relative = subprocess.run([sys.executable, "-m", "compilelint", "check", "--isolated", "--no-cache", "--select",
                               "GB401", "--explain-scope", pkg.name], capture_output=True, text=True, timeout=120,
                              cwd=pkg.parent)
    assert f"reached from Detector.forward ({pkg.name}/model.py:11)" in relative.stdout, relative.stdout
    sarif = subprocess.run([sys.executable, "-m", "compilelint", "check", "--isolated", "--no-cache", "--select",
                            "GB401", "--output-format", "sarif", str(pkg)], capture_output=True, text=True, timeout=120)
    (res,) = [r for r in json.loads(sarif.stdout)["runs"][0]["results"]
              if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 7]
    related = [(loc["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1],
                loc["physicalLocation"]["region"]["startLine"], loc["message"]["text"])
               for loc in res["relatedLocations"]]
    assert related[0] == ("model.py", 11, "entry point: Detector.forward"), related


def test_a_library_base_is_read_from_the_installed_package_and_never_reported(tmp_path, monkeypatch):
    site = tmp_path / "site"
    lib = site / f"fancylib_{uuid.uuid4().hex[:8]}"
    (lib / "blocks").mkdir(parents=True)
    (lib / "__init__.py").write_text("from .blocks import Block\n")
    (lib / "blocks" / "__init__.py").write_text("from .base import Block\n")
    (lib / "blocks" / "base.py").write_text(textwrap.dedent('''
        from torch import nn

        class Block(nn.Module):
            def forward(self, x):
                return self.mix(x) + x.min().item()

            def mix(self, x):
                return x
    '''))
    project = tmp_path / "project"
    project.mkdir()
    net = f"net_{uuid.uuid4().hex[:8]}"
    (project / f"{net}.py").write_text(textwrap.dedent(f'''
        import {lib.name}

        class Net({lib.name}.Block):
            def mix(self, x):
                return x * x.max().item()  # <-
    '''))
    monkeypatch.syspath_prepend(str(site))
    result = lint([str(project)], Config(select=["GB401"]), jobs=1)
    assert [(Path(f.path).name, f.line) for f in result.findings] == [(f"{net}.py", 6)]
    assert result.files == [str(project / f"{net}.py")]
    (finding,) = result.findings
    assert [Path(r.path).name for r in finding.reached_from] == ["base.py"]
    import torch
    from compilelint.runtime_probe import observe

    monkeypatch.syspath_prepend(str(project))
    model = importlib.import_module(net).Net()
    report = observe.run_dynamo(model, [(torch.randn(3, 4),)])
    broke = {e.lineno for e in report.breaks if Path(e.filename).name == f"{net}.py"}
    assert 6 in broke, [(e.filename, e.lineno) for e in report.breaks]


def test_what_another_files_function_returns_is_known_from_its_annotation(tmp_path, monkeypatch):
    pkg = tmp_path / f"ret_{uuid.uuid4().hex[:8]}"
    (pkg / "utils").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "utils" / "__init__.py").write_text("from .pairs import split_pairs\n")
    (pkg / "utils" / "pairs.py").write_text(textwrap.dedent('''
        from typing import Optional, Tuple

        import torch
        from torch import Tensor


        def split_pairs(
            x: Tensor,
            scale: float = 1.0,
        ) -> Tuple[Tensor, Optional[Tensor]]:
            return x[:, 0] * scale, x[:, 1]
    '''))
    (pkg / "model.py").write_text(textwrap.dedent(f'''
        import torch
        from {pkg.name}.utils import split_pairs


        class Model(torch.nn.Module):
            def forward(self, x):
                first, second = split_pairs(x)
                keep = first > 0
                return second[keep]  # <-
    '''))
    result = lint([str(pkg)], Config(select=["GB404"]), jobs=1)
    assert [(Path(f.path).name, f.line) for f in result.findings] == [("model.py", 10)]
    import torch
    from compilelint.runtime_probe import observe

    monkeypatch.syspath_prepend(str(tmp_path))
    model = importlib.import_module(f"{pkg.name}.model").Model()
    report = observe.run_dynamo(model, [(torch.randn(5, 2),)])
    assert 10 in {e.lineno for e in report.breaks if Path(e.filename).name == "model.py"}, report.breaks


def test_a_field_annotated_in_another_files_class_gives_its_values_their_type(tmp_path, monkeypatch):
    """`param: ParamItem`, a NamedTuple of another file with `data: Optional[Union[Dict[str, Tensor], List]]`:
    `param.data.get(...)` is a tensor, so its `.item()` is a graph break (kornia's _get_new_batch_shape), seen
    with the package given and with the model's file given alone (the NamedTuple's file read for its fields)."""
    pkg = tmp_path / f"fld_{uuid.uuid4().hex[:8]}"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .params import ParamItem\n")
    (pkg / "params.py").write_text(textwrap.dedent('''
        from typing import Dict, List, NamedTuple, Optional, Union

        import torch


        class ParamItem(NamedTuple):
            """Parameters of one step.

            data: not a field (a docstring line)
            """

            name: str
            data: Optional[Union[Dict[str, torch.Tensor], List["ParamItem"]]]
    '''))
    (pkg / "model.py").write_text(textwrap.dedent(f'''
        import torch
        from {pkg.name} import ParamItem


        def gated(param: ParamItem, x):
            data = param.data
            if isinstance(data, list):
                return x
            prob = data.get("batch_prob", None)
            if prob.item() > 0.5:
                return x * 2
            return x - 1


        class Model(torch.nn.Module):
            def forward(self, x):
                param = ParamItem("p", {{"batch_prob": x.mean().reshape(1)}})
                return gated(param, x) + 1
    '''))
    for given in ([str(pkg)], [str(pkg / "model.py")]):
        result = lint(given, Config(select=["GB401"]), jobs=1)
        assert [(Path(f.path).name, f.line) for f in result.findings] == [("model.py", 11)], given
    # a Dict[str, int] field is no tensor: nothing to flag
    (pkg / "params.py").write_text((pkg / "params.py").read_text().replace("torch.Tensor]", "int]"))
    assert lint([str(pkg)], Config(select=["GB401"]), jobs=1).findings == []
    (pkg / "params.py").write_text((pkg / "params.py").read_text().replace("int]", "torch.Tensor]"))
    import torch
    from compilelint.runtime_probe import observe

    monkeypatch.syspath_prepend(str(tmp_path))
    model = importlib.import_module(f"{pkg.name}.model").Model()
    report = observe.run_dynamo(model, [(torch.randn(4),)])
    assert 11 in {e.lineno for e in report.breaks if Path(e.filename).name == "model.py"}, report.breaks
