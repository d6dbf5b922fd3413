"""The semantic model on patterns from real libraries that the rules got wrong (benchmarks/realworld).

Each pattern is a snippet written here, linted, and run through real torch: a claim is removed only where
torch shows nothing at that line, and the same construct on a real tensor is still reported (and torch
still fails there).
"""

from __future__ import annotations

import textwrap

import pytest

from compilelint.analysis.tensors import Kind
from compilelint.config import Config
from compilelint.engine import lint
from compilelint.semantic.params import ParamKinds

HELPER_INT = '''\
import math
import torch
from torch import nn


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:  # <- int: plain Python under every compiler
        emb = torch.cat([emb, torch.zeros_like(emb[:, :1])], dim=-1)
    return emb


def gate(x, threshold):
    if threshold.sum() > 0:  # <- a tensor: Dynamo breaks here
        return x * 2
    return x


class M(nn.Module):
    def __init__(self, dim=7):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)

    def forward(self, t, w):
        return gate(self.proj(timestep_embedding(t, self.dim)), w)
'''

TRACING_GUARD = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if not torch.jit.is_tracing():
            if torch.isnan(x).any():  # <- the tracer never runs this check; Dynamo does
                raise ValueError("NaN in the input")
        return x * 2
'''


def _lint(tmp_path, source: str, name: str = "snippet.py"):
    path = tmp_path / name
    path.write_text(source)
    result = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    return path, {(f.code, f.line) for f in result.findings}


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _load(path, entry: str = "M"):  # noqa: ANN202
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_semantic_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, entry)()


def test_helper_parameters_hold_what_callers_pass():
    kinds = ParamKinds.from_source(HELPER_INT)
    assert kinds.of("timestep_embedding") == {"timesteps": Kind.TENSOR, "dim": Kind.UNKNOWN}
    assert kinds.of("gate") == {"x": Kind.TENSOR, "threshold": Kind.TENSOR}
    source = textwrap.dedent('''\
        import torch

        def pad_to(x, n, value):
            return x

        def scale(x, s):
            return x * s

        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.k = 4

            def helper(self, n, flag):
                return n

            def forward(self, x):
                h = x.shape[-1]
                rows, cols = x.shape[-2:]
                self.helper(rows, False)
                y = pad_to(x, h // 2, 0.5)
                y = y + scale(x, self.k) + scale(x, 3)
                return self.helper(x.size(0), True) + y
        ''')
    kinds = ParamKinds.from_source(source)
    assert kinds.of("pad_to") == {"x": Kind.TENSOR, "n": Kind.SIZE, "value": Kind.PY}
    assert kinds.of("scale") == {"x": Kind.TENSOR, "s": Kind.PY}
    assert kinds.of("M.helper") == {"n": Kind.SIZE, "flag": Kind.PY}
    assert kinds.of("M.forward") == {}  # an entry: its inputs are the model's


def test_int_parameter_of_a_helper_is_no_tensor_branch(tmp_path):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path, found = _lint(tmp_path, HELPER_INT)
    int_line, tensor_line = _line(HELPER_INT, "if dim % 2"), _line(HELPER_INT, "threshold.sum()")
    assert not {code for code, line in found if line == int_line}, found
    assert {"GB403", "EX701", "TR301"} <= {code for code, line in found if line == tensor_line}, found
    model = _load(path)
    sets = [(torch.arange(3.0), torch.ones(2)), (torch.arange(5.0), -torch.ones(2))]
    report = observe.run_dynamo(model, sets)
    lines = {b.lineno for b in report.breaks if b.filename == str(path)}
    assert tensor_line in lines and int_line not in lines, lines
    trace = observe.run_trace(model, sets)
    warned = {n for _, f, n in trace.warnings if f == str(path)}
    assert tensor_line in warned and int_line not in warned, warned


def test_branch_the_tracer_never_runs_is_no_trace_claim(tmp_path):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path, found = _lint(tmp_path, TRACING_GUARD, "guarded.py")
    line = _line(TRACING_GUARD, "torch.isnan(x).any()")
    codes = {code for code, n in found if n == line}
    assert "GB403" in codes and not {c for c in codes if c.startswith("TR")}, found
    model = _load(path)
    sets = [(torch.ones(3),), (-torch.ones(3),)]
    trace = observe.run_trace(model, sets)
    assert not trace.warnings and not trace.diverged
    report = observe.run_dynamo(model, sets)
    assert line in {b.lineno for b in report.breaks if b.filename == str(path)}


FINAL_BRANCH = '''\
import torch
from torch import nn


class Head(nn.Module):
    return_features: torch.jit.Final[bool]

    def __init__(self, return_features: bool = False):
        super().__init__()
        self.return_features = return_features
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        y = self.proj(x)
        if self.return_features:
            return y, x
        return y  # <- another type than the tuple, on the other side of a constant branch
'''


def test_returns_on_the_two_sides_of_a_final_branch_never_meet(tmp_path):
    torch = pytest.importorskip("torch")
    path, found = _lint(tmp_path, FINAL_BRANCH, "final_branch.py")
    assert not {code for code, _ in found if code == "TA206"}, found
    model = _load(path, "Head")
    for flag in (False, True):
        head = type(model)(flag)
        scripted = torch.jit.script(head)  # TorchScript prunes the side the constant rules out
        out = scripted(torch.randn(2, 4))
        assert isinstance(out, tuple) == flag
    # without Final the same forward is rejected, and the rule says so
    plain = FINAL_BRANCH.replace("    return_features: torch.jit.Final[bool]\n", "")
    path, found = _lint(tmp_path, plain, "plain_branch.py")
    assert ("TA206", _line(plain, "return y  #")) in found
    with pytest.raises(Exception, match="return"):
        torch.jit.script(_load(path, "Head"))


SIZE_TO_HELPER = '''\
import torch
import torch.nn.functional as F
from torch import nn


class ClipLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.prev_num_logits = 0
        self.labels = {}

    def get_ground_truth(self, device, num_logits) -> torch.Tensor:
        if self.prev_num_logits != num_logits or device not in self.labels:  # <- a size, not data
            labels = torch.arange(num_logits, device=device, dtype=torch.long)
            self.labels[device] = labels
            self.prev_num_logits = num_logits
        else:
            labels = self.labels[device]
        return labels

    def get_logits(self, image_features, text_features, logit_scale):
        logits_per_image = logit_scale * image_features @ text_features.T
        logits_per_text = logit_scale * text_features @ image_features.T
        return logits_per_image, logits_per_text

    def forward(self, image_features, text_features, logit_scale):
        device = image_features.device
        logits_per_image, logits_per_text = self.get_logits(image_features, text_features, logit_scale)
        labels = self.get_ground_truth(device, logits_per_image.shape[0])
        total_loss = (F.cross_entropy(logits_per_image, labels) + F.cross_entropy(logits_per_text, labels)) / 2
        return total_loss
'''


def test_size_handed_to_a_helper_is_no_data_dependent_branch(tmp_path):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path, found = _lint(tmp_path, SIZE_TO_HELPER, "clip_loss.py")
    line = _line(SIZE_TO_HELPER, "# <- a size")
    assert not {code for code, n in found if n == line and code[:2] in ("GB", "EX")}, found
    assert ParamKinds.from_source(SIZE_TO_HELPER).of("ClipLoss.get_ground_truth")["num_logits"] is Kind.SIZE
    model = _load(path, "ClipLoss")
    sets = [(torch.randn(4, 8), torch.randn(4, 8), torch.tensor(2.0)),
            (torch.randn(6, 8), torch.randn(6, 8), torch.tensor(3.0))]
    report = observe.run_dynamo(model, sets)
    assert line not in {b.lineno for b in report.breaks if b.filename == str(path)}, report.breaks
    exported = observe.run_export(model, sets[0])
    assert exported.ok, exported.error


COMPILING_WRAPPER = '''\
import torch


def is_compiling() -> bool:
    return torch.compiler.is_compiling()


class M(torch.nn.Module):
    def forward(self, x, sigma):
        if not is_compiling():
            positive = bool((sigma > 0).all())  # <- never traced: the wrapper folds to True under compile
            if not positive:
                raise ValueError("sigma must be positive")
        if x.device.type == "cpu" and not is_compiling() and not x.is_pinned():  # <- short-circuit
            x = x * 2
        return x * sigma
'''


def test_wrapper_of_is_compiling_and_short_circuit_prune_branches(tmp_path):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path, found = _lint(tmp_path, COMPILING_WRAPPER, "wrapper.py")
    lines = {_line(COMPILING_WRAPPER, "# <- never traced"), _line(COMPILING_WRAPPER, "# <- short-circuit")}
    assert not {(c, n) for c, n in found if n in lines and c[:2] in ("GB", "EX")}, found
    model = _load(path)
    sets = [(torch.randn(3), torch.ones(3)), (torch.randn(5), 2 * torch.ones(5))]
    report = observe.run_dynamo(model, sets)
    assert not {b.lineno for b in report.breaks if b.filename == str(path)}, report.breaks
    assert observe.run_export(model, sets[0]).ok
    # eager (and trace) run the check: the trace rules still see it
    assert ("TR302", _line(COMPILING_WRAPPER, "# <- never traced")) in found


def test_opt_in_rule_runs_only_when_named(tmp_path):
    path = tmp_path / "dtype.py"
    path.write_text("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
                    "        return torch.zeros(3, dtype=x.dtype) + x.sum()\n")
    codes = {f.code for f in lint([str(path)], Config(root=str(tmp_path)), jobs=1).findings}
    assert "TR315" not in codes  # not through ALL
    codes = {f.code for f in lint([str(path)], Config(select=["TR"], root=str(tmp_path)), jobs=1).findings}
    assert "TR315" not in codes  # not through a prefix
    codes = {f.code for f in lint([str(path)], Config(extend_select=["TR315"], root=str(tmp_path)), jobs=1).findings}
    assert "TR315" in codes


TRAINING_ONLY = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        if self.training:
            x = x * x.abs().max().item()  # <- only a training step reads this
        return x * x.sum().item()  # <- every call
'''


def test_training_path_findings_are_one_level_lower(tmp_path):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path = tmp_path / "training.py"
    path.write_text(TRAINING_ONLY)
    result = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    train_line, every_line = _line(TRAINING_ONLY, "only a training"), _line(TRAINING_ONLY, "every call")
    gb = {f.line: f for f in result.findings if f.code == "GB401"}
    assert gb[train_line].severity == "note" and gb[every_line].severity == "warning"
    model = _load(path).eval()  # users compile for inference: the training branch never runs
    with torch._dynamo.config.patch(capture_scalar_outputs=False):  # whatever an earlier test left set
        report = observe.run_dynamo(model, [(torch.ones(3),), (torch.ones(4),)])
    lines = {b.lineno for b in report.breaks if b.filename == str(path)}
    assert every_line in lines and train_line not in lines, lines


UPSAMPLE = '''
import torch
from torch import nn


class Upsample(nn.Module):
    def __init__(self, channels: int, use_conv: bool = False, use_conv_transpose: bool = False):
        super().__init__()
        self.use_conv_transpose = use_conv_transpose
        self.conv = None
        if use_conv_transpose:
            self.conv = nn.ConvTranspose1d(channels, channels, 4, 2, 1)
        elif use_conv:
            self.conv = nn.Conv1d(channels, channels, 3, padding=1)

    def forward(self, x):
        if self.use_conv_transpose:
            return self.conv(x)
        return x
'''


@pytest.mark.parametrize("builds, flagged", [
    (("Upsample(8, use_conv_transpose=True)", "Upsample(8, use_conv=True)"), False),  # every build sets conv
    (("Upsample(8, True)", "Upsample(8, use_conv=flag)"), False),  # by position; a value not known
    (("Upsample(8, use_conv_transpose=True)", "Upsample(8)"), True),  # one build keeps the defaults
    (("Upsample(8, use_conv=False)",), True),  # the default passed
    ((), True),  # built nowhere in the tree: the defaults are the claim
])
def test_attribute_state_per_build_in_the_tree(tmp_path, builds, flagged):
    """Where the defaults leave `self.conv` None, the claim holds only for a build that passes none of the
    `__init__` parameters deciding it: every build of the class in the tree (another file's) is asked."""
    (tmp_path / "upsampling.py").write_text(UPSAMPLE)
    blocks = "\n".join(f"        self.up{i} = {build}" for i, build in enumerate(builds)) or "        pass"
    (tmp_path / "blocks.py").write_text(
        "from torch import nn\nfrom upsampling import Upsample\n\n\nclass Block(nn.Module):\n"
        f"    def __init__(self, flag=True):\n        super().__init__()\n{blocks}\n")
    result = lint([str(tmp_path / "upsampling.py"), str(tmp_path / "blocks.py")],
                  Config(root=str(tmp_path), select=["TS169"]), jobs=1)
    lines = [(f.path.rpartition("/")[2], f.line) for f in result.findings if f.code == "TS169"]
    assert lines == ([("upsampling.py", 18)] if flagged else [])
    assert all("\0" not in f.message for f in result.findings)


CONFIG_CLASSES = {
    "dataclass": "from dataclasses import dataclass\n\n\n@dataclass\nclass DetCfg:\n    scale: float = 2.0\n",
    "frozen": "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass DetCfg:\n    scale: float = 2.0\n",
    "no generated methods": ("from dataclasses import dataclass\n\n\n@dataclass(init=False, repr=False, eq=False)\n"
                             "class DetCfg:\n    scale: float = 2.0\n\n    def __init__(self, scale: float = 2.0):\n"
                             "        self.scale = scale\n"),
    "plain class": "class DetCfg:\n    def __init__(self, scale: float = 2.0):\n        self.scale = scale\n",
    "holder": ("from dataclasses import dataclass\n\n\n@dataclass\nclass Inner:\n    scale: float = 2.0\n\n\n"
               "class DetCfg:\n    def __init__(self):\n        self.inner = Inner()\n        self.scale = 2.0\n"),
}


@pytest.mark.parametrize("kind", sorted(CONFIG_CLASSES))
def test_config_object_attribute_claim_agrees_with_torch(tmp_path, kind, monkeypatch):
    """TS180 asks the index, across files, whether the class of the object a module holds compiles as a
    TorchScript class; the claim must match what torch.jit.script does with the same two files."""
    import importlib
    import sys
    import warnings

    torch = pytest.importorskip("torch")
    (tmp_path / "cfgs.py").write_text(CONFIG_CLASSES[kind])
    (tmp_path / "detmodel.py").write_text(
        "import torch\nfrom typing import Optional\nfrom cfgs import DetCfg\n\n\nclass Det(torch.nn.Module):\n"
        "    def __init__(self, config: Optional[DetCfg] = None):\n        super().__init__()\n"
        "        self.config = config if config is not None else DetCfg()\n\n"
        "    def forward(self, x):\n        return x * self.config.scale\n")
    result = lint([str(tmp_path / "cfgs.py"), str(tmp_path / "detmodel.py")],
                  Config(root=str(tmp_path), select=["TS180"], targets=["torchscript"]), jobs=1)
    flagged = [(f.path.rpartition("/")[2], f.line) for f in result.findings if f.code == "TS180"]
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("cfgs", "detmodel"):
        sys.modules.pop(name, None)
    try:
        module = importlib.import_module("detmodel")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                torch.jit.script(module.Det())
                fails = False
            except Exception as err:  # noqa: BLE001
                fails = True
                assert "config" in str(err) or "Failed to get source" in str(err), err
    finally:
        for name in ("cfgs", "detmodel"):
            sys.modules.pop(name, None)
    assert flagged == ([("detmodel.py", 12)] if fails else []), (kind, flagged, fails)
    assert fails == (kind in ("dataclass", "frozen", "holder")), kind


def test_without_none_gives_the_one_type_an_optional_admits():
    import libcst as cst

    from compilelint.semantic.annotations import without_none

    aliases = {"Optional": "typing.Optional", "Union": "typing.Union", "nn": "torch.nn"}
    seen = {text: without_none(cst.parse_expression(text), aliases) for text in (
        "Optional[nn.Module]", "Union[nn.Module, None]", "None | nn.Module", "nn.Module | None", "nn.Module",
        "Union[int, str]", "Union[int, str, None]", "int | str")}
    code = {text: cst.Module([]).code_for_node(node) if node is not None else None for text, node in seen.items()}
    assert code == {"Optional[nn.Module]": "nn.Module", "Union[nn.Module, None]": "nn.Module",
                    "None | nn.Module": "nn.Module", "nn.Module | None": "nn.Module", "nn.Module": "nn.Module",
                    "Union[int, str]": None, "Union[int, str, None]": None, "int | str": None}
