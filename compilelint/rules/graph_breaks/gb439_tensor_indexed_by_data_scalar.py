"""GB439 tensor-indexed-by-data-scalar: Flags a tensor read or written at a 0-d index computed from tensor data (`t[x.argmax()]`) in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule
from compilelint.semantic.constructs import Construct


class TensorIndexedByDataScalar(BreakRule):
    code = 'GB439'
    construct = Construct.DATA_DEPENDENT_VALUE
    name = 'tensor-indexed-by-data-scalar'
    gb_id = 'GB0033'
    severity = "warning"
    message = 'index from tensor data breaks the graph; index with `i.view(1)`'
    version_note = ('Verified on 2.13 and on 2.11 (the examples below through the harness): reads '
                    'and writes break with GB0033 ("Data dependent operator", '
                    'aten._local_scalar_dense); with torch._dynamo.config.capture_scalar_outputs = True they still '
                    'break on the subscript, without a registry id ("Could not extract specialized integer"). '
                    'torch.export fails on the writes (EX718), and on torch 2.11 on the reads too (EX719). Only the '
                    'first read of a name breaks: the resumed frame takes the value as an input, and later reads of '
                    'it guard (one recompile per new value) instead of breaking; a read after some other graph '
                    'break in the same function is such an input too, which the rule does not model.')
    doc = RuleDoc(
        what=("Flags, in code torch.compile traces, a tensor read or written at a 0-d index computed from tensor "
              "data: `t[i]`, `t[:, i]`, `t[i] = v` where `i` is `x.argmax()` / `x.argmin()` without a dim, "
              "`torch.argmax(x)`, or integer arithmetic, `clamp` or `torch.div` of one (directly or through a name)."),
        why=(('A 0-d integer tensor used as an index is turned into a Python number (`t.select(0, int(i))`). The '
              'number lives in tensor data, so Dynamo cannot trace it: it ends the graph at the subscript and runs '
              'the rest of the function in another graph, with eager code between. A 1-element index tensor is '
              'advanced indexing (a gather or an index_put_), which stays in the graph. Index with a 1-element '
              'tensor (`t[i.view(1)]`, `t.index_select(0, i.view(1))`), or use a mask with `torch.where`.')),
        example="best = scores.argmax()\nbox = boxes[best]",
        use_instead="best = scores.argmax()\nbox = boxes.index_select(0, best.view(1))[0]",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        box = boxes[best]  # <-
        conf = scores[best]
        return box * conf + 1.0
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat):
        peak = heat.flatten().argmax()
        flat = heat.flatten().clone()
        flat[peak] = 0.0  # <-
        return flat.view_as(heat).softmax(-1)
''', inputs="[(torch.rand(4, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat, feat):
        w = heat.size(1)
        idx = heat.flatten().argmax()
        y = torch.div(idx, w, rounding_mode="floor")
        x = idx % w
        picked = feat[:, y, x]  # <-
        return picked.sigmoid()
''', inputs="[(torch.rand(5, 5), torch.randn(3, 5, 5))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        box = boxes.index_select(0, best.view(1))[0]
        return box * 2.0 + 1.0
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat):
        flat = heat.flatten()
        peak = torch.arange(flat.numel(), device=flat.device) == flat.argmax()
        return torch.where(peak, 0.0, flat).view_as(heat).softmax(-1)
''', inputs="[(torch.rand(4, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat, feat):
        w = heat.size(1)
        idx = heat.flatten().argmax(0, keepdim=True)
        y = torch.div(idx, w, rounding_mode="floor")
        x = idx % w
        picked = feat[:, y, x][:, 0]
        return picked.sigmoid()
''', inputs="[(torch.rand(5, 5), torch.randn(3, 5, 5))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`t[i]`, `t[:, i]`, `t[i] = v` with `i` a 0-d index read from tensor data (`x.argmax()`; FunctionFacts.
        is_data_scalar_index): PyTorch reads the index as a number (aten._local_scalar_dense) and Dynamo breaks the
        graph there: GB0033 for reads and writes; with capture_scalar_outputs = True it still breaks on the subscript,
        with no registry id ("Could not extract specialized integer")."""
        if type(node) is not cst.Subscript or not ctx.facts.is_tensor(node.value):
            return None
        facts = ctx.facts
        read = [e.slice.value for e in node.slice if type(e.slice) is cst.Index and facts.is_data_scalar_index(e.slice.value)]
        return "GB0033" if read and facts.first_number_read(node, read) else None

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
