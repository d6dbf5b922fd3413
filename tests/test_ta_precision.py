"""Precision guards for the TA2xx / TS150+ rules: real-code shapes that once produced false positives
(found by linting torch.nn and torch.ao.nn), and scope: bodies TorchScript never compiles. Every snippet
was checked to script and run on torch 2.13 (`torch.jit.script(M())(torch.randn(2, 3))`)."""

from __future__ import annotations

import textwrap

import pytest

from compilelint.config import Config
from compilelint.engine import lint

CLEAN = {
    "elif-branches-unify-none": '''
        import torch
        def pick(x, size: int = 0):
            if size < 0:
                raise ValueError("size")
            elif size > 0:
                scale = None
                out = [size]
            else:
                scale = [2.0]
                out = [x.shape[0]]
            return out
        class M(torch.nn.Module):
            def forward(self, x):
                return x * len(pick(x, 2))
    ''',
    "init-defaults-never-compiled": '''
        import torch
        class M(torch.nn.Module):
            def __init__(self, dim, device=None, dtype=None, k=3):
                super().__init__()
                self.fc = torch.nn.Linear(dim, dim, device=device, dtype=dtype)
            def forward(self, x):
                return self.fc(x)
    ''',
    "attribute-from-user-base-or-helper": '''
        import torch
        class Base(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.steps = 0
        class M(Base):
            def __init__(self):
                super().__init__()
                self._build()
            def _build(self):
                self.fc = torch.nn.Linear(3, 3)
                self.cache = torch.zeros(1)
            def forward(self, x):
                self.cache = self.fc(x)
                self.steps = 1
                self.training = False
                return self.cache
    ''',
    "reassigned-optional-param": '''
        import torch
        from typing import Optional, Tuple
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = torch.nn.LSTMCell(3, 3)
            def forward(self, x, hidden: Optional[Tuple[torch.Tensor, torch.Tensor]] = None):
                out = []
                for i in range(x.shape[0]):
                    hidden = self.cell(x[i], hidden)
                    out.append(hidden[0])
                return torch.stack(out)
    ''',
    "filled-at-init-and-constant-index": '''
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.names = []
                for i in range(3):
                    self.names.append(str(i))
                self.blocks = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])
            def forward(self, x, mode: str = "a"):
                if self.training:
                    x = x * 2
                if x.dim() == 3:
                    x = x.flatten(1)
                return self.blocks[-1](self.blocks[0](x)) * len(self.names)
    ''',
    "ignored-and-unscripted-code": '''
        import torch
        import numpy as np
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.table = {1, 2}
            @torch.jit.ignore
            def debug(self, x, k, mask=None):
                keep = []
                keep.append(int(k))
                self.last = x
                return list(self.table), keep
            def forward(self, x):
                return x
        def train_step(model, batch, steps):
            hist = []
            for i in range(steps):
                hist.append(i)
            model.seen = len(hist)
            return hist
    ''',
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_no_ta_or_module_shape_findings(name, tmp_path):
    path = tmp_path / f"{name.replace('-', '_')}.py"
    path.write_text(textwrap.dedent(CLEAN[name]))
    result = lint([str(path)], Config(select=["TA2", "TS15"], root=str(tmp_path), targets=["torchscript"]), jobs=1)
    assert [(f.code, f.line, f.message[:60]) for f in result.findings] == []
