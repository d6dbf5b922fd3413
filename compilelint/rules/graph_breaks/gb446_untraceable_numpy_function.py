"""GB446 untraceable-numpy-function: Flags NumPy functions Dynamo cannot trace (`np.polyfit`, `np.interp`, ...) applied to an array made from a tensor in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.semantic.constructs import Construct
from compilelint.torchapi.dynamo import UNTRACEABLE_NUMPY

_INSTEAD = {
    "polyfit": "use `torch.vander` and `pinv`",
    "polyval": "use `torch.vander(x, len(c)) @ c`",
    "interp": "use `torch.searchsorted` and a lerp",
    "lexsort": "use `torch.argsort` of a combined key",
    "unravel_index": "use `torch.unravel_index`",
    "lstsq": "use `torch.linalg.pinv` (lstsq breaks too)",
    "pad": "use `torch.nn.functional.pad`",
}


class UntraceableNumpyFunction(CallBreakRule):
    code = 'GB446'
    construct = Construct.NUMPY
    name = 'untraceable-numpy-function'
    call_gate = gate(names=set(UNTRACEABLE_NUMPY))
    gb_id = 'GB0294'
    severity = "warning"
    message = "`{call}` of a tensor array breaks the graph; {instead}"
    version_note = ('Verified on 2.13 (arrays from `t.numpy()`; its examples also on 2.11): np.polyfit, np.polyval, np.interp, np.lexsort and '
                    'np.unravel_index break with GB0294 ("attempted to trace numpy function unsupported by PyTorch"), '
                    'np.linalg.lstsq with GB0036 (no meta kernel), np.pad with GB0033. np.histogram, np.searchsorted, '
                    'np.convolve, np.cumsum, np.diff, np.arctan2, np.einsum, np.median, np.round, np.meshgrid, '
                    'np.argsort, np.nan_to_num and np.linalg.svd are traced and not flagged.')
    doc = RuleDoc(
        what=('Flags, in compiled code, calls of `np.polyfit`, `np.polyval`, `np.interp`, `np.lexsort`, '
              '`np.unravel_index`, `np.linalg.lstsq` and `np.pad` with an argument that is a NumPy array made from '
              'a tensor (`t.numpy()`, `np.asarray(t)`, or computed from one).'),
        why=(('Lane and keypoint post-processing often fits polynomials with NumPy on points taken from the network'
              ' output. Dynamo turns NumPy calls on tensor-backed arrays into torch ops; for these functions there '
              'is none, so the graph ends at the call and it runs in eager NumPy. Torch versions: `np.polyfit` is '
              '`torch.linalg.pinv(torch.vander(x, deg + 1)) @ y`, `np.polyval` `torch.vander(x, len(c)) @ c`, '
              "`np.interp` `torch.searchsorted` and a lerp of the segment's ends, `np.lexsort` `torch.argsort` of a"
              ' combined key (or two stable sorts), `np.unravel_index` `torch.unravel_index` (or `i // w`, `i % '
              'w`), `np.pad` `torch.nn.functional.pad`.')),
        example='pts = lane_pts.detach().cpu().numpy()\ncoef = np.polyfit(pts[:, 1], pts[:, 0], 2)',
        use_instead='coef = torch.linalg.pinv(torch.vander(lane_pts[:, 1], 3)) @ lane_pts[:, 0]',
    )
    bad = (
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, lane_pts):
        pts = lane_pts.detach().cpu().numpy()
        coef = np.polyfit(pts[:, 1], pts[:, 0], 2)  # <-
        return torch.from_numpy(np.asarray(coef)).float() * 2.0
''', inputs="[(torch.rand(10, 2),), (torch.rand(10, 2),)]"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, xs):
        a = xs.detach().numpy()
        ys = np.interp(a, [0.0, 0.5, 1.0], [0.0, 2.0, 3.0])  # <-
        return torch.from_numpy(ys) + 1.0
''', inputs="[(torch.rand(7),), (torch.rand(7),)]"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, grid):
        g = grid.detach().numpy()
        padded = np.pad(g, 1)  # <-
        return torch.from_numpy(padded).sum() + grid
''', inputs="[(torch.rand(4, 4),), (torch.rand(4, 4),)]", gb_id="GB0033"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, lane_pts):
        coef = torch.linalg.pinv(torch.vander(lane_pts[:, 1], 3)) @ lane_pts[:, 0]
        return coef * 2.0
''', inputs="[(torch.rand(10, 2),), (torch.rand(10, 2),)]"),
        Example('''import numpy as np
import torch


class M(torch.nn.Module):
    def forward(self, xs):
        a = xs.detach().numpy()
        order = np.argsort(a)
        return torch.from_numpy(a[order]) + 1.0
''', inputs="[(torch.rand(7),), (torch.rand(7),)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is not cst.Call:
            return None
        gb_id = UNTRACEABLE_NUMPY.get(call_name(node, ctx))
        if gb_id and any(ctx.facts.is_traced_array(a.value) for a in node.args):
            return gb_id
        return None

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        short = (ctx.qualify(node.func) or "").rsplit(".", 1)[-1]
        return self.message.format(call=brief(ctx.code_for(node.func), 20), gb=gb_id, instead=_INSTEAD.get(short, "use torch ops"))
