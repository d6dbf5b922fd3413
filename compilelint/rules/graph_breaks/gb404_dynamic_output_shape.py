"""GB404 dynamic-output-shape-op: Flags `nonzero`, `argwhere`, one-argument `torch.where(cond)`, `masked_select`, `unique`/`unique_consecutive`, `bincount`, `torch.combinations`, reading `x[mask]` with a boolean tensor mask, and `repeat_interleave` with a tensor of repeats and no `output_size`"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule


class DynamicOutputShapeOp(BreakRule):
    code = 'GB404'
    name = 'dynamic-output-shape-op'
    detector = 'dynamic_shape'
    gb_id = 'GB0036'
    severity = "warning"
    message = ('An op whose output shape depends on tensor data (`nonzero`, `unique`, `bincount`, `masked_select`, boolean-mask indexing `x[mask]`, `repeat_interleave` without `output_size`) breaks the graph (GB0036): keep the shape static with `torch.where(mask, x, 0)` / masked arithmetic, pass `output_size=`, or set torch._dynamo.config.capture_dynamic_output_shape_ops = True')
    version_note = ('`torch.combinations` breaks too (its size comes from a masked select inside torch; with capture_dynamic_output_shape_ops and fullgraph=True 2.13 raises InternalTorchDynamoError instead). On 2.13 masked assignment `x[mask] = v` and `repeat_interleave` with int repeats or output_size do not break (not flagged). Silent in a file that sets capture_dynamic_output_shape_ops = True.')
    doc = RuleDoc(
        what='Flags `nonzero`, `argwhere`, one-argument `torch.where(cond)`, `masked_select`, `unique`/`unique_consecutive`, `bincount`, `torch.combinations`, reading `x[mask]` with a boolean tensor mask, and `repeat_interleave` with a tensor of repeats and no `output_size`.',
        why="Dynamo's default tracing needs every output shape as a function of input shapes; these ops' shapes depend on the data, so Dynamo breaks the graph at them (GB0036) unless capture_dynamic_output_shape_ops is on.",
        example='kept = scores[scores > 0.5]\nreturn kept.sum()',
        use_instead='kept = torch.where(scores > 0.5, scores, 0)\nreturn kept.sum()',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x)  # <-
        return idx + 1
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        keep = x[0, :, 0] > 0
        y = x[0, keep, :2]  # <-
        return y * 2
''', inputs="[(torch.randn(2, 5, 3),), (torch.randn(2, 7, 3),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        m = x > 0
        y = x[m]  # <-
        return y * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        counts = torch.bincount(x.argmax(-1), minlength=3)  # <-
        return counts * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes):
        pairs = torch.combinations(torch.arange(boxes.shape[0]), r=2)  # <-
        return (boxes[pairs[:, 0]] - boxes[pairs[:, 1]]).abs().sum(-1)
''', inputs="[(torch.randn(6, 4),), (torch.randn(8, 4),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        iou = boxes @ boxes.T
        survivors = iou.amax(0) <= 0.5 if boxes.size(0) else scores > 0
        kept = boxes[survivors]  # <-
        return kept * 2
''', inputs="[(torch.randn(6, 4), torch.randn(6)), (torch.randn(9, 4), torch.randn(9))]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return torch.where(x > 0, x, torch.zeros_like(x)) * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        x = x.clone()
        x[x > 0] = 0
        return x + 1
'''),
    )

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        if type(node) is cst.Call and ctx.qualify(node.func) == "torch.combinations":
            return ("`torch.combinations` breaks the graph (GB0036): torch builds it with a masked select, so its "
                    "size depends on data as far as Dynamo knows; index with `torch.triu_indices(n, n, offset=1)` "
                    "instead (the same pairs, in the same order, for r=2)")
        return self.message

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
