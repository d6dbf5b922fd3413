"""EX704: a tensor turned into a NumPy array (`t.numpy()`, `np.asarray(t)`, any `np.*` function of a tensor)
under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.constructs import Construct
from compilelint.semantic.frames import runtime_kind


class ExportTensorToNumpy(ExportRule):
    code = "EX704"
    construct = Construct.NUMPY
    call_gate = gate(heads={"numpy"}, methods={"numpy"})
    name = "export-tensor-to-numpy"
    torch_error = (".numpy() is not supported for tensor subclasses",)
    message = '{what}: fake tensors have no data for NumPy; export fails'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default. With strict=True (2.13) "
                    "Dynamo traces these NumPy calls through torch and the export succeeds.")
    doc = RuleDoc(
        what=("Flags `.numpy()` of a tensor (`t.detach().cpu().numpy()` included) and NumPy functions called on a "
              "tensor (`np.asarray(t)`, `np.clip(t, ...)`, `np.float32(t.sum())`), in code torch.export reaches."),
        why=(('torch.export (non-strict, the 2.13 default) runs the module on fake tensors: shapes and dtypes, no '
              'data. Converting one to a NumPy array needs the data, so export stops with `RuntimeError: .numpy() '
              'is not supported for tensor subclasses`. torch.compile traces the same code (Dynamo maps NumPy calls'
              ' to torch ops in 2.13), so a model that compiles can still fail to export here. Use the torch '
              'function instead (`torch.clamp` for `np.clip`), or keep the NumPy step outside the exported module.')),
        example="dw = torch.from_numpy(np.clip(deltas[:, 2].numpy(), None, self.clip))",
        use_instead="dw = deltas[:, 2].clamp(max=self.clip)",
    )
    bad = (
        Example('''import numpy as np
import torch

class M(torch.nn.Module):
    def forward(self, deltas):
        dw = torch.from_numpy(np.clip(deltas[:, 2].numpy(), None, 4.0))  # <-
        return deltas[:, :2] * dw.exp()[:, None]
''', inputs="[(torch.randn(8, 4),)]"),
        Example('''import numpy as np
import torch

class M(torch.nn.Module):
    def forward(self, x):
        scale = np.float32(x.abs().max())  # <-
        return x / float(scale)
''', inputs="[(torch.randn(8, 4),)]"),
        Example('''import numpy as np
import torch

class M(torch.nn.Module):
    def forward(self, x):
        att = x.softmax(-1)
        a = att.detach().cpu().numpy()  # <-
        entropy = -(a * np.log(a + 1e-9)).sum(-1).mean()
        return att * float(entropy)
''', inputs="[(torch.randn(8, 4),)]"),
    )
    good = (
        Example('''import numpy as np
import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def _padded(self, w):
        return int(np.ceil(w / 16)) * 16  # an int: forward hands it the input's width

    def forward(self, x):
        w = x.shape[-1]
        return F.pad(x, (0, self._padded(w) - w))
''', inputs="[(torch.randn(1, 3, 40),)]"),
        Example('''import numpy as np
import torch

class M(torch.nn.Module):
    def forward(self, deltas):
        dw = deltas[:, 2].clamp(max=4.0)
        return deltas[:, :2] * dw.exp()[:, None]
''', inputs="[(torch.randn(8, 4),)]"),
        Example('''import numpy as np
import torch

ANCHORS = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)

class M(torch.nn.Module):
    def forward(self, x):
        return x * torch.from_numpy(np.sqrt(ANCHORS))
''', inputs="[(torch.randn(8, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "numpy":
            receiver = func.value
            if ctx.facts.kind(receiver) in (Kind.TENSOR, Kind.UNKNOWN) and ctx.qualify(receiver) not in ("numpy", "torch"):
                self.report(ctx, node, self.message.format(what="`.numpy()` of a tensor"))
            return
        name = ctx.qualify(func) or ""
        if not name.startswith("numpy.") or (type(func) is cst.Name and func.value in ctx.facts.env):
            return
        for arg in node.args:
            value = arg.value
            if arg.keyword is None and not arg.star and runtime_kind(value, ctx) is Kind.TENSOR and not _is_numpy_call(value):
                self.report(ctx, node, self.message.format(what=f"`{name.replace('numpy.', 'np.', 1)}()` of a tensor"))
                return


def _is_numpy_call(expr: cst.BaseExpression) -> bool:
    """`t.numpy()`: reported where it is called, not again by the NumPy function it feeds."""
    return type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "numpy"
