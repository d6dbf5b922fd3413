"""TR precision: what the trace rules must flag, at which severity, and what they must leave alone.

Severity "error": other inputs silently get wrong values (data-dependent). Severity "warning": the trace only
specialises on a shape; "note": on a dtype. Static configuration (`self.training`, `x.dim() == 4`, `cfg.use_fpn`) and
constructs torch.jit.trace records correctly (TORCH_FACTS.md) must not be flagged.
"""

from __future__ import annotations

import textwrap

import pytest

from compilelint.config import Config
from compilelint.engine import lint

HEADER = """\
import math
import torch
import torch.nn.functional as F
class M(torch.nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.num_layers = 3
        self.conv = torch.nn.Conv2d(3, 3, 1)
    def forward(self, x, scores, boxes, feats, cfg, mask=None):
"""


def findings(body: str, tmp_path) -> set[tuple[str, str]]:
    path = tmp_path / "snippet.py"
    path.write_text(HEADER + textwrap.indent(textwrap.dedent(body), " " * 8))
    # TR315 is opt-in (selected by its own code only): named here so its precision is checked too
    result = lint([str(path)], Config(select=["TR", "TR315"], root=str(tmp_path)), jobs=1)
    return {(f.code, f.severity) for f in result.findings}


FLAGGED = [
    ("if x.sum() > 0:\n    x = x * 2\nreturn x", ("TR301", "error")),
    ("while scores.max() > 0.5:\n    scores = scores * 0.5\nreturn scores", ("TR301", "error")),
    ("if not (scores > 0.5).any():\n    return x\nreturn x * 2", ("TR301", "error")),
    ("t = scores.max().item()\nreturn x * t", ("TR302", "error")),
    ("return x[: int(scores.argmax())]", ("TR302", "error")),
    ("out = [x[i] for i in range(x.size(0))]\nreturn torch.stack(out)", ("TR303", "warning")),
    ("b, c, h, w = x.shape\nfor i in range(b):\n    x = x + i\nreturn x", ("TR303", "warning")),
    ("keep = torch.nonzero(scores > 0.5).squeeze(1)\nfor i in range(len(keep)):\n    x = x + boxes[keep[i]].sum()\nreturn x",
     ("TR304", "error")),
    ("kept = boxes[scores > 0.3]\nif kept.shape[0] == 0:\n    return x\nreturn kept", ("TR304", "error")),
    ("dets = boxes[scores > 0.3]\nreturn [d * 2 for d in dets]", ("TR304", "error")),
    ("return x * 2 if x.mean() > 0 else x", ("TR305", "error")),
    ("assert (scores >= 0).all()\nreturn scores", ("TR306", "error")),
    ("ok = (x > 0).all() and (x < 1).all()\nreturn x * ok", ("TR307", "error")),
    ("p = scores.softmax(-1)\nreturn [r * 2 for r in p]", ("TR308", "warning")),
    ("y = x.flatten(1)\nreturn y.sum() / len(y)", ("TR309", "warning")),
    ("return torch.from_numpy(scores.numpy() * 2)", ("TR310", "error")),
    ("return x / math.sqrt(x.size(-1))", ("TR311", "warning")),
    ("if x.shape[0] > 1:\n    x = x.mean(0, keepdim=True)\nreturn x", ("TR312", "warning")),
    ("import random\nreturn x * random.random()", ("TR313", "error")),
    ("return torch.tensor([scores.max().item()])", ("TR314", "error")),
    ("return torch.tensor([x.shape[0]])", ("TR314", "warning")),
    ("return torch.zeros(4, dtype=x.dtype)", ("TR315", "note")),
    ("self.num_layers += 1\nreturn x", ("TR316", "error")),
    ("if 'mask' in feats:\n    x = x * feats['mask']\nreturn x", ("TR317", "error")),
    ("return F.dropout(x, 0.1)", ("TR318", "error")),
]

CLEAN = [
    "if self.training:\n    x = F.dropout(x, 0.1, training=self.training)\nreturn x",
    "if x.dim() == 4:\n    x = x.flatten(2)\nreturn x",
    "if x.ndim == 3 and self.cfg.use_fpn:\n    x = x * 2\nreturn x",
    "if cfg.use_fpn:\n    x = self.conv(x)\nreturn x",
    "if self.cfg.use_fpn:\n    x = self.conv(x)\nreturn x",
    "if mask is not None:\n    x = x * mask\nreturn x",
    "return x.view(x.size(0), -1)",
    "return F.interpolate(x, size=(x.shape[2] * 2, x.shape[3] * 2))",
    "return torch.arange(x.shape[1]) + x.size(-1) ** 0.5",
    "return boxes[scores > 0.5]",
    "return torch.where(scores > 0.5, scores, torch.zeros_like(scores))",
    "for f in feats:\n    x = x + f.mean()\nreturn x / len(feats)",
    "for i in range(self.num_layers):\n    x = self.conv(x)\nreturn x",
    "keep = scores > 0.5\nreturn (boxes * keep.unsqueeze(-1).float()).sum(0)",
    "n = x.shape[0] // 2\nreturn x[:n].reshape(n, -1)",
    "return x.new_zeros(x.shape[0], 4) + torch.zeros_like(x).type_as(x)",
    "return torch.zeros(x.shape[0], 4, device=x.device)",
    "return F.dropout(x, 0.1, training=self.training)",
]


@pytest.mark.parametrize("body,expected", FLAGGED, ids=[e[1][0] + "-" + str(i) for i, e in enumerate(FLAGGED)])
def test_flagged_with_severity(body, expected, tmp_path):
    got = findings(body, tmp_path)
    assert expected in got, got


@pytest.mark.parametrize("body", CLEAN, ids=[f"clean{i}" for i in range(len(CLEAN))])
def test_not_flagged(body, tmp_path):
    assert findings(body, tmp_path) == set()


def test_value_and_shape_severities_differ(tmp_path):
    assert findings("if x.sum() > 0:\n    return x\nreturn x * 2", tmp_path) == {("TR301", "error")}
    assert findings("if x.size(0) > 2:\n    return x\nreturn x * 2", tmp_path) == {("TR312", "warning")}


MORE_CLEAN: list[str] = [
    "for i in range(len(feats)):\n    x = x + feats[i].mean()\nreturn x",
    "if len(feats) == 0:\n    return x\nreturn x + feats[0]",
    "for d in range(x.dim()):\n    x = x.flip(d)\nreturn x",
    "for i in range(self.num_layers):\n    if i > 0:\n        x = self.conv(x)\nreturn x",
]


MORE_CLEAN += [
    "if torch.is_autocast_enabled():\n    x = x.float()\nreturn x",
    "s = x.size()\nif len(s) == 2:\n    x = x.unsqueeze(0)\nreturn x",
]


def test_size_validation_is_only_a_check_that_vanishes(tmp_path):
    # not a second code path for valid inputs (no TR312), but the traced graph never checks it (TR320, a note)
    body = "if x.size(0) != scores.size(0):\n    raise ValueError(f'bad {scores.max().item()}')\nreturn x"
    assert findings(body, tmp_path) == {("TR320", "note")}


@pytest.mark.parametrize("body", MORE_CLEAN, ids=[f"more_clean{i}" for i in range(len(MORE_CLEAN))])
def test_static_sizes_not_flagged(body, tmp_path):
    assert findings(body, tmp_path) == set()


MORE_CLEAN_2 = [
    "if cfg:\n    x = x * 2\nreturn x",
    "if not cfg and self.training:\n    x = x * 2\nreturn x",
    "if x.is_complex():\n    x = x.real\nreturn x",
    "return torch.quantize_per_tensor(x, float(self.scale), int(self.zero_point), torch.quint8)",
    "if isinstance(feats, tuple) and len(feats) == 2:\n    x = x + feats[0]\nreturn x",
]


@pytest.mark.parametrize("body", MORE_CLEAN_2, ids=[f"clean_flags{i}" for i in range(len(MORE_CLEAN_2))])
def test_flags_and_module_state_not_flagged(body, tmp_path):
    assert findings(body, tmp_path) == set()


def test_tuple_assignment_keeps_data_dependent_shapes(tmp_path):
    body = "keep = scores > 0.2\nboxes, scores = boxes[keep], scores[keep]\nk = min(3, scores.shape[0])\nreturn boxes[:k]"
    assert ("TR304", "error") in findings(body, tmp_path)


def test_loop_over_unbind_is_unrolled(tmp_path):
    body = "for u in feats.unbind(1):\n    x = x + u\nreturn x"
    assert findings(body, tmp_path) == {("TR308", "warning")}
