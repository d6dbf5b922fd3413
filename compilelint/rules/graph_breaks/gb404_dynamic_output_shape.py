"""GB404 dynamic-output-shape-op: Flags `nonzero`, `argwhere`, one-argument `torch.where(cond)`, `masked_select`, `unique`/`unique_consecutive`, `bincount`, `torch.combinations`, reading `x[mask]` with a boolean tensor mask, and `repeat_interleave` with a tensor of repeats and no `output_size`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule
from compilelint.semantic.calls import argument, call_name, tensor_method
from compilelint.torchapi.shapes import DYNAMIC_OUTPUT_FUNCTIONS, DYNAMIC_OUTPUT_METHODS


def _is_array_comparison(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.Comparison:
        return not any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons)
    if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.BitAnd, cst.BitOr):
        return _is_array_comparison(expr.left) or _is_array_comparison(expr.right)
    return False


def _is_store(node: cst.CSTNode, ctx) -> bool:  # noqa: ANN001
    """`node` is (part of) an assignment target: `x[mask] = 0` does not break."""
    parent = ctx.parent
    if type(parent) is cst.Assign:
        return any(t.target is node for t in parent.targets)
    if type(parent) is cst.AssignTarget:
        return parent.target is node
    if type(parent) in (cst.AugAssign, cst.AnnAssign):
        return parent.target is node
    return False


class DynamicOutputShapeOp(BreakRule):
    code = 'GB404'
    name = 'dynamic-output-shape-op'
    call_gate = gate(names=DYNAMIC_OUTPUT_FUNCTIONS | {"torch.where", "torch.repeat_interleave"},
                     methods={*DYNAMIC_OUTPUT_METHODS, "repeat_interleave"})
    loop_fix = "use masked arithmetic (torch.where) or output_size="
    gb_id = 'GB0036'
    severity = "warning"
    message = 'output shape depends on data; mask, or pass `output_size=`'
    version_note = ('`torch.combinations` breaks too (its size comes from a masked select inside torch; with capture_dynamic_output_shape_ops and fullgraph=True 2.13 raises InternalTorchDynamoError instead). On 2.13 masked assignment `x[mask] = v` and `repeat_interleave` with int repeats or output_size do not break (not flagged). Silent in a file that sets capture_dynamic_output_shape_ops = True.')
    doc = RuleDoc(
        what='Flags `nonzero`, `argwhere`, one-argument `torch.where(cond)`, `masked_select`, `unique`/`unique_consecutive`, `bincount`, `torch.combinations`, reading `x[mask]` with a boolean tensor mask, and `repeat_interleave` with a tensor of repeats and no `output_size`.',
        why=("Dynamo's default tracing needs every output shape as a function of input shapes; these ops' shapes "
             'depend on the data, so Dynamo breaks the graph at them (GB0036) unless '
             'capture_dynamic_output_shape_ops is on. Keep the shape static with `torch.where(mask, x, 0)` / '
             'masked arithmetic, pass `output_size=`, or set '
             '`torch._dynamo.config.capture_dynamic_output_shape_ops = True`. For `torch.combinations(x, r=2)`, '
             '`torch.triu_indices(n, n, offset=1)` gives the same pairs in the same order.'),
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

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if ctx.module_facts.capture_dynamic_output_shape_ops:
            return None
        if type(node) is cst.Call:
            name = call_name(node, ctx)
            if name in DYNAMIC_OUTPUT_FUNCTIONS and node.args:
                return "GB0036"
            if name == "torch.where" and len(node.args) == 1 and node.args[0].keyword is None:
                return "GB0036"  # one-argument torch.where(cond) is nonzero(as_tuple=True)
            if type(node.func) is cst.Attribute and node.func.attr.value in DYNAMIC_OUTPUT_METHODS:
                receiver = node.func.value
                kind = ctx.facts.kind(receiver)
                if kind is Kind.TENSOR:
                    return "GB0036"
                if kind is Kind.UNKNOWN and _is_array_comparison(receiver):
                    return "GB0036"  # `(iou > self.thr).nonzero()`: a comparison with a .nonzero() is an array
            # repeat_interleave with a tensor of repeats and no output_size
            if name == "torch.repeat_interleave" or tensor_method(node, ctx, ("repeat_interleave",)):
                if any(a.keyword is not None and a.keyword.value == "output_size" for a in node.args):
                    return None
                repeats = argument(node, 1 if name == "torch.repeat_interleave" else 0, "repeats")
                if name == "torch.repeat_interleave" and len([a for a in node.args if a.keyword is None]) == 1:
                    repeats = argument(node, 0)  # torch.repeat_interleave(repeats)
                if repeats is not None and ctx.facts.is_tensor(repeats):
                    return "GB0036"
            return None
        if type(node) is cst.Subscript and not _is_store(node, ctx) and ctx.facts.is_tensor(node.value):
            # x[mask], and a mask among other indices (x[b, mask, :4]): both have a data-dependent size
            for element in node.slice:
                if type(element.slice) is cst.Index and ctx.facts.is_bool_mask(element.slice.value):
                    return "GB0036"
        return None

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        if type(node) is cst.Call and ctx.qualify(node.func) == "torch.combinations":
            # torch builds it with a masked select: the same pairs, in order, for r=2 are `torch.triu_indices(n, n, 1)`
            return "`torch.combinations` has a data-dependent size; use `torch.triu_indices`"
        return self.message

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
