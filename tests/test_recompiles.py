"""RC family precision: code that looks like a recompile hazard but is not one on torch 2.13 stays clean.

Each case below was either measured (see the rule docs: str args that are never compared, int args used
in arithmetic, float globals, `for v in t.tolist()`, `torch.compile` of a fresh module in a loop or inside
forward: no recompile or one, then dynamic) or cannot vary between calls (parameter shapes, rank, a
helper's arguments given as constants by its caller). Static only: nothing here compiles.
"""

from __future__ import annotations

import textwrap

from compilelint.config import Config
from compilelint.engine import lint

CLEAN = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from typing import List, Optional

EPS = 1e-6
SCALE = 1.0
LEVELS = 3


def set_scale(s):
    global SCALE
    SCALE = s


def resize(x, mode: str = "bilinear", steps: int = 2):
    if mode == "nearest":
        return F.interpolate(x, scale_factor=2.0, mode="nearest")
    for _ in range(steps):
        x = x * 0.5
    return x


class Neck(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.w = nn.Parameter(torch.randn(3, 4))
        self.cache = {}

    def forward(self, feats, x: torch.Tensor, ids, k: int = 3, mode: Optional[str] = None):
        outs = [f * 2 for f in feats]
        for i in range(len(feats)):
            outs.append(feats[i])
        for i, layer in enumerate(self.layers):
            x = layer(x) + self.layers[i](x)
        for j in range(self.w.shape[0]):
            x = x + self.w[j]
        for d in range(x.dim()):
            x = x * 1.0
        if mode is None:
            x = x + EPS + SCALE + LEVELS
        for t in ids.tolist():
            x = x + t
        self.cache[id(self)] = 1
        ptr = x.data_ptr()
        y = resize(x, "nearest", 3)
        lin = torch.compile(self.layers[0])
        return x * k + y + lin(x)


def train(model, batches):
    for batch in batches:
        compiled = torch.compile(model)
        compiled(batch)
        fn = torch.compile(lambda t: t * 2)
        fn(batch)
'''

HAZARDS = '''
import torch

MODE = "fast"


def set_mode(m):
    global MODE
    MODE = m


def head(x):
    if MODE == "fast":
        return x * 2
    return x + 1


compiled_head = torch.compile(head)
'''


def _findings(tmp_path, source: str) -> list[tuple[str, int]]:
    path = tmp_path / "case.py"
    path.write_text(textwrap.dedent(source))
    result = lint([str(path)], Config(select=["RC"], root=str(tmp_path)), jobs=1)
    return [(f.code, f.line) for f in result.findings]


def test_lookalikes_are_clean(tmp_path):
    assert _findings(tmp_path, CLEAN) == []


def test_compile_target_defined_in_the_same_file_is_in_scope(tmp_path):
    # `compiled_head = torch.compile(head)` puts `head` in scope (analysis/scope.py), so RC509 sees its read.
    assert _findings(tmp_path, HAZARDS) == [("RC509", 13)]


SKIPPED_WHOLE = '''
import torch


class M(torch.nn.Module):
    def forward(self, x, n: int):
        for i in range(n):
            x = x * 2
            print("step", i)
        return x


class Kept(torch.nn.Module):
    def forward(self, x, n: int):
        for i in range(n):
            x = x * 2
        return x
'''


def test_no_recompile_claim_in_a_function_dynamo_skips_whole(tmp_path):
    # A break inside a loop makes Dynamo skip the frame (GB7000): it runs eagerly and never recompiles (2.13:
    # `range(n)` with a print in the body, n = 1..5, no recompile); the same loop without the print recompiles.
    assert [f for f in _findings(tmp_path, SKIPPED_WHOLE) if f[0].startswith("RC")] == [("RC505", 15)]
