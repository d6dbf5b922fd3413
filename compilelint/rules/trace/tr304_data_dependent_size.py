"""TR304: the size of a data-dependent result (nonzero, x[mask], unique, nms) consumed by Python."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.rules.trace._util import in_condition
from compilelint.semantic.constructs import Construct


class DataDependentSize(Rule):
    code = "TR304"
    construct = Construct.DATA_DEPENDENT_VALUE
    call_gate = gate(bare={"int", "float", "max", "min", "len"})
    name = "trace-frozen-data-dependent-size"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '{what}: the trace freezes `{expr}`'
    doc = RuleDoc(
        what=("Flags Python that consumes the size of a tensor whose size depends on data: `len()` of it, a loop "
              "over it or over `range()` of its size, an `if` on its size."),
        why=("`boxes[scores > t]` and `torch.nonzero` are traced correctly as tensor ops, but the moment Python "
             "consumes their length (a loop, an `if`, `len()`, `int()`/`min()`), trace bakes in the example's count. Post-"
             "processing (detections kept after NMS, keypoints above threshold) then returns the example's number "
             "of results for every image."),
        example="keep = scores > 0.5\nfor i in range(len(boxes[keep])):\n    ...",
        use_instead="out = boxes * keep.unsqueeze(-1)  # or boxes[keep] processed with tensor ops",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores, boxes):
        keep = torch.nonzero(scores > 0.5).squeeze(1)
        out = []
        for i in range(len(keep)):  # <-
            out.append(boxes[keep[i]] * scores[keep[i]])
        return torch.stack(out)
''', inputs=("[(torch.tensor([0.9, 0.2, 0.7]), torch.randn(3, 4)),"
             " (torch.tensor([0.9, 0.8, 0.7]), torch.randn(3, 4))]")),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores):
        kept = scores[scores > 0.5]
        if kept.numel() == 0:  # <-
            return scores.new_zeros(1)
        return kept.sum().reshape(1)
''', inputs="[(torch.tensor([0.1, 0.2]),), (torch.tensor([0.9, 0.8]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores, boxes):
        keep = scores > 0.5
        return (boxes * scores.unsqueeze(1))[keep]
''', inputs=("[(torch.tensor([0.9, 0.2, 0.7]), torch.randn(3, 4)),"
             " (torch.tensor([0.9, 0.8, 0.7]), torch.randn(3, 4))]")),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores):
        return torch.where(scores > 0.5, scores, torch.zeros_like(scores)).sum().reshape(1)
''', inputs="[(torch.tensor([0.1, 0.2]),), (torch.tensor([0.9, 0.8]),)]"),
    )

    def _report(self, ctx, node, what, expr) -> None:  # noqa: ANN001
        ctx.report(node, self.message.format(what=what, expr=brief(ctx.code_for(expr), 24)))

    def _iter(self, iterable: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if facts.has_dynamic_shape(iterable):
            self._report(ctx, iterable, "loop over a data-dependent tensor", iterable)
        elif (type(iterable) is cst.Call and type(iterable.func) is cst.Name
              and iterable.func.value in ("range", "enumerate", "zip")):
            for a in iterable.args:
                if facts.reads_dynamic_size(a.value) or facts.has_dynamic_shape(a.value):
                    self._report(ctx, iterable, f"`{iterable.func.value}()` over a data-dependent size", a.value)
                    return

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        self._iter(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        self._iter(node.iter, ctx)

    def _test(self, test: cst.BaseExpression, ctx, kw: str) -> None:  # noqa: ANN001
        if ctx.facts.reads_dynamic_size(test):
            self._report(ctx, test, f"`{kw}` on a data-dependent size", test)

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._test(node.test, ctx, "if")

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self._test(node.test, ctx, "while")

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._test(node.test, ctx, "conditional expression")

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (type(func) is cst.Name and node.args):
            return
        if func.value in ("int", "float", "max", "min") and any(ctx.facts.reads_dynamic_size(a.value) for a in node.args):
            self._report(ctx, node, f"`{func.value}()` of a data-dependent size", node)
        elif func.value == "len" and ctx.facts.has_dynamic_shape(node.args[0].value) and not in_condition(ctx):
            anc = ctx.ancestors
            outer = anc[-2] if len(anc) >= 2 else None
            if type(outer) is cst.Call and type(outer.func) is cst.Name and outer.func.value in (
                    "range", "int", "float", "max", "min", "enumerate", "zip"):
                return  # reported at the enclosing call
            self._report(ctx, node, "`len()` of a data-dependent tensor", node.args[0].value)
