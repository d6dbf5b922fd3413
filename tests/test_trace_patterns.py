"""Trace claims on patterns taken from real libraries (benchmarks/realworld), judged by real torch.jit.trace.

The snippet marks each line `# flagged: CODE` (compilelint reports CODE there and the tracer warns there) or
`# clean` (no trace finding, and the tracer is silent there). The patterns are the false claims the real-world
table showed: a size already converted to a Python number, a size test behind a flag that is off by default, a
branch the tracer never takes, the length of what a block returns, a value converted on an earlier line, a
per-call reset of module state, and an optional dict input.
"""

from __future__ import annotations

import importlib.util
import math
import re

import pytest

from compilelint.config import Config
from compilelint.engine import lint

SNIPPET = '''\
import math
import torch
from torch import nn


def denormalize(laf, images):
    _, _, h, w = images.size()
    wf = float(w - 1)  # flagged: TR311
    hf = float(h - 1)  # flagged: TR311
    min_size = min(hf, wf)  # clean
    return laf * min_size


def scale_of(key):
    return 1 / math.sqrt(math.sqrt(key.shape[-1]))  # flagged: TR311


def resize(x, antialias: bool = False):
    h, w = x.shape[-2:]
    factors = (h / 2, w / 2)
    antialias = antialias and (max(factors) > 1)  # clean
    if antialias:  # clean
        x = x * 2
    return x


def downscale(x):
    _, _, height, width = x.shape
    if isinstance(height, torch.Tensor):
        size = [torch.floor(side.reshape(1).double() / 2).long()[0] for side in (height, width)]
    else:
        size = [int(float(height) / 2), int(float(width) / 2)]  # clean
    return torch.nn.functional.interpolate(x, size=size)


class Pair(nn.Module):
    def forward(self, x):
        return x.relu(), x.sigmoid()


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.use_tiling = False
        self.attn = Pair()
        self.results = []

    def enable_tiling(self):
        self.use_tiling = True

    def forward(self, x, images, extra=None):
        self.results = []  # clean
        if self.use_tiling and x.shape[0] > 2:  # clean
            x = x[:2]
        if x.shape[1] > 2:  # flagged: TR312
            x = x * 1.5
        out = self.attn(x)
        if len(out) == 2:  # clean
            x = out[0] + out[1]
        positive = bool((x > -1).all())  # flagged: TR302
        x = x if positive else -x  # clean
        if extra is not None and "mask" in extra:  # clean
            x = x * extra["mask"]
        self.results.append(x)
        return denormalize(x, images) * scale_of(x), resize(images), downscale(images)
'''


def _marks(source: str) -> tuple[dict[int, str], set[int]]:
    flagged, clean = {}, set()
    for number, text in enumerate(source.splitlines(), 1):
        found = re.search(r"# flagged: (\w+)", text)
        if found:
            flagged[number] = found.group(1)
        elif text.rstrip().endswith("# clean"):
            clean.add(number)
    return flagged, clean


@pytest.fixture(scope="module")
def snippet(tmp_path_factory):
    path = tmp_path_factory.mktemp("trace_patterns") / "patterns.py"
    path.write_text(SNIPPET)
    return path


def test_trace_claims_on_real_patterns(snippet):
    flagged, clean = _marks(SNIPPET)
    result = lint([str(snippet)], Config(root=str(snippet.parent)), jobs=1)
    trace_findings = {(f.line, f.code) for f in result.findings if f.code.startswith("TR")}
    for line, code in flagged.items():
        assert (line, code) in trace_findings, (line, code, sorted(trace_findings))
    assert not {(line, code) for line, code in trace_findings if line in clean}


def test_real_trace_warns_exactly_on_the_flagged_lines(snippet):
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    flagged, clean = _marks(SNIPPET)
    spec = importlib.util.spec_from_file_location("_trace_patterns", snippet)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sets = [(torch.randn(3, 4), torch.randn(1, 2, 8, 6)), (torch.randn(5, 4), torch.randn(1, 2, 10, 12))]
    trace = observe.run_trace(module.M(), sets)
    warned = {n for _, f, n in trace.warnings if f == str(snippet)}
    assert set(flagged) <= warned, (sorted(flagged), sorted(warned))
    assert not warned & clean, sorted(warned & clean)
    assert math.isfinite(float(module.M()(*sets[0])[0].sum()))


PER_LEVEL = '''\
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.ModuleList([nn.Conv2d(2, 4, 1), nn.Conv2d(3, 4, 1)])

    def forward(self, feats: torch.Tensor):  # annotated Tensor, called with one feature map per level
        out = [self.proj[i](f) for i, f in enumerate(feats)]  # clean
        for i, f in enumerate(feats):  # clean
            out[i] = out[i] + self.proj[i](f)
        return torch.cat([o.flatten(1) for o in out], 1)
'''


def test_a_sequence_walked_with_a_module_list_is_no_tensor(tmp_path):
    """kornia's RT-DETR head: `feats` is annotated Tensor but lines up with `self.input_proj` by position; the
    loop walks levels (a fixed count), not rows, so neither trace (TR308) nor Dynamo (RC507) specialises on it."""
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path = tmp_path / "levels.py"
    path.write_text(PER_LEVEL)
    _, clean = _marks(PER_LEVEL)
    result = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    assert not [f for f in result.findings if f.line in clean and f.code in ("TR308", "RC507")], result.findings
    spec = importlib.util.spec_from_file_location("_levels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sets = [([torch.randn(1, 2, 4, 4), torch.randn(1, 3, 2, 2)],), ([torch.randn(2, 2, 6, 6), torch.randn(2, 3, 3, 3)],)]
    trace = observe.run_trace(module.M(), sets)
    assert not {n for _, f, n in trace.warnings if f == str(path)} & clean
    assert not trace.diverged, trace.divergence


CONSTANTS = '''\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, x):
        half = torch.tensor(0.5)  # clean
        pad = torch.zeros(x.shape[1], dtype=x.dtype, device=x.device)  # clean
        return x * half + pad
'''


def test_constants_torch_calls_safe_are_no_trace_finding(tmp_path):
    """A literal `torch.tensor(0.5)` and a tensor whose dtype and device are copied from the input: torch warns
    about the first ("registered as constants ... safely ignore") and the trace is right for other inputs."""
    torch = pytest.importorskip("torch")
    from compilelint.runtime_probe import observe

    path = tmp_path / "constants.py"
    path.write_text(CONSTANTS)
    _, clean = _marks(CONSTANTS)
    result = lint([str(path)], Config(root=str(tmp_path)), jobs=1)
    assert not [f for f in result.findings if f.code.startswith("TR")], result.findings
    spec = importlib.util.spec_from_file_location("_constants", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    trace = observe.run_trace(module.M(), [(torch.randn(2, 3),), (torch.randn(4, 5),)])
    assert not trace.diverged, trace.divergence
