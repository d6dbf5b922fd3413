from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.constructs import Construct
from compilelint.semantic.loops import loop_body, walks_blocks_by_position


class LoopOverBatchDim(Rule):
    code = "RC507"
    construct = Construct.LOOP_OVER_TENSOR_SIZE
    name = "python-loop-over-tensor-dim"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    precision = "medium"
    message = '`{expr}` loops over dim 0 of `{tensor}`: each size recompiles'
    doc = RuleDoc(
        what=("Flags `for ... in range(x.shape[0])` / `range(x.size(0))` / `range(len(x))` (also through a local such as "
              "`B = x.shape[0]` or `B, C = x.shape`), and `for row in x` / `enumerate(x)` / `zip(x, ...)` / `x.unbind()` over a tensor, in compiled code. `len(p)` / `for v in p` on an unannotated parameter "
              "are not flagged: that is as often a list of fixed length (FPN levels) as a tensor."),
        why=("A varying input dimension normally costs one recompile, then Dynamo makes it dynamic. A Python loop over "
             "that dimension cannot be dynamic: the unrolled body guards on the exact size. Verified on 2.13 "
             "(backend=\"eager\"): inputs with 2, 3, 4, 5 rows gave three recompiles "
             "(`tensor 'x' size mismatch at index 0. expected 2, actual 3`, then expected 3 / 4), against one for the "
             "same sizes without the loop; with dynamic=True still three; `enumerate(x)`, `x.unbind(0)` and `torch.unbind(x)` the same (three each). Loops over parameter or buffer shapes (`self.w.shape[0]`) are not flagged: "
             "those never change."),
        example="out = []\nfor i in range(boxes.shape[0]):\n    out.append(boxes[i] * scale[i])\nreturn torch.stack(out)",
        use_instead="return boxes * scale",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, boxes, scale):
        out = []
        for i in range(boxes.shape[0]):  # <-
            out.append(boxes[i] * scale[i])
        return torch.stack(out)
''', inputs="[(torch.randn(n, 4), torch.rand(n, 1)) for n in (2, 3, 4, 5)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        B, C = x.shape
        rows = [x[b] / (x[b].norm() + 1) for b in range(B)]  # <-
        return torch.stack([r * 2 for r in x])  # <-
''', inputs="[(torch.randn(n, 4),) for n in (2, 3, 4, 5)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        scaled = torch.stack([r * i for i, r in enumerate(x)])  # <-
        return torch.stack([r.softmax(0) for r in scaled.unbind(0)])  # <-
''', inputs="[(torch.randn(n, 4),) for n in (2, 3, 4, 5)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(3, 4))
    def forward(self, boxes, scale):
        acc = boxes.sum(0)
        for i in range(self.w.shape[0]):
            acc = acc + self.w[i]
        for d in range(boxes.dim()):
            acc = acc * 1.0
        return boxes * scale + acc
''', inputs=("[(b, s) for n in (2, 3, 4, 5) for b, s in [(torch.randn(n, 4), torch.rand(n, 1))]"
             " if torch._dynamo.mark_dynamic(b, 0) or torch._dynamo.mark_dynamic(s, 0) or True]"),
                note="The varying dimension is marked dynamic: the vectorised twin then compiles once for all sizes."),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._dim0: dict[str, str] = {}  # local name -> the tensor whose dim 0 it holds

    def _tensor_owner(self, expr: cst.BaseExpression, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
        """The input tensor whose first dimension `expr` is, or None."""
        if type(expr) is cst.Subscript and len(expr.slice) == 1 and type(expr.slice[0].slice) is cst.Index:
            idx = expr.slice[0].slice.value
            if (type(idx) is cst.Integer and idx.value == "0" and type(expr.value) is cst.Attribute
                    and expr.value.attr.value == "shape"):
                return self._local_tensor(expr.value.value, ctx)
        if type(expr) is cst.Call:
            f = expr.func
            if (type(f) is cst.Attribute and f.attr.value == "size" and len(expr.args) == 1
                    and type(expr.args[0].value) is cst.Integer and expr.args[0].value.value == "0"):
                return self._local_tensor(f.value, ctx)
            if type(f) is cst.Name and f.value == "len" and len(expr.args) == 1:
                return self._local_tensor(expr.args[0].value, ctx, shape_evidence=False)
        return None

    @staticmethod
    def _local_tensor(expr: cst.BaseExpression, ctx, *, shape_evidence: bool = True) -> cst.BaseExpression | None:  # noqa: ANN001
        """`expr` if it is a tensor of the function (parameters and buffers `self.w` have fixed shapes).

        An unannotated parameter is only assumed to be a tensor; `len(p)` / `for v in p` on one is just as
        likely a list of fixed length (FPN levels), so those need `shape_evidence` (`p.shape[0]`, `p.size(0)`).
        """
        if not (type(expr) is cst.Name and ctx.facts.is_tensor(expr)):
            return None
        if not shape_evidence and expr.value in _unannotated_params(ctx.function):
            return None
        return expr

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if not hasattr(self, "_dim0"):
            self._dim0 = {}
        for t in node.targets:
            target = t.target
            if type(target) is cst.Name:
                owner = self._tensor_owner(node.value, ctx)
                if owner is not None:
                    self._dim0[target.value] = ctx.code_for(owner)
                else:
                    self._dim0.pop(target.value, None)
            elif (type(target) in (cst.Tuple, cst.List) and target.elements
                  and type(node.value) is cst.Attribute and node.value.attr.value == "shape"):
                first = target.elements[0].value
                owner = self._local_tensor(node.value.value, ctx)
                if type(first) is cst.Name and owner is not None:
                    self._dim0[first.value] = ctx.code_for(owner)

    def _check_iter(self, it: cst.BaseExpression, report_node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        dim0 = getattr(self, "_dim0", {})
        if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "range" and it.args:
            bound = it.args[0].value if len(it.args) == 1 else it.args[1].value
            owner = self._tensor_owner(bound, ctx)
            tensor = ctx.code_for(owner) if owner is not None else (
                dim0.get(bound.value) if type(bound) is cst.Name and ctx.facts.kind(bound) is Kind.SIZE else None)
            if tensor is not None:
                ctx.report(report_node, self.message.format(expr=brief(ctx.code_for(it), 24), tensor=tensor))
            return
        rows = self._rows_of(it, ctx)
        if rows is not None:
            ctx.report(report_node, self.message.format(expr=brief(ctx.code_for(it), 24), tensor=rows.value))

    def _rows_of(self, it: cst.BaseExpression, ctx) -> cst.Name | None:  # noqa: ANN001
        """The tensor whose rows `it` iterates: `x`, `enumerate(x)`, `zip(x, ...)`, `x.unbind()`, `torch.unbind(x)`."""
        if type(it) is cst.Name:
            return self._local_tensor(it, ctx, shape_evidence=False)
        if type(it) is not cst.Call:
            return None
        f = it.func
        if type(f) is cst.Name and f.value in ("enumerate", "zip") and it.args:
            for a in it.args if f.value == "zip" else it.args[:1]:
                found = self._rows_of(a.value, ctx)
                if found is not None:
                    return found
            return None
        dim0 = not it.args or (type(it.args[-1].value) is cst.Integer and it.args[-1].value.value == "0")
        if type(f) is cst.Attribute and f.attr.value == "unbind" and dim0 and len(it.args) <= 1:
            return self._local_tensor(f.value, ctx, shape_evidence=False)
        if ctx.qualify(f) == "torch.unbind" and it.args and (len(it.args) == 1 or (
                len(it.args) == 2 and type(it.args[1].value) is cst.Integer and it.args[1].value.value == "0")):
            return self._local_tensor(it.args[0].value, ctx, shape_evidence=False)
        return None

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        if not walks_blocks_by_position(node, loop_body(node, ctx.ancestors), ctx.class_facts):
            self._check_iter(node.iter, node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        if not walks_blocks_by_position(node, loop_body(node, ctx.ancestors), ctx.class_facts):
            self._check_iter(node.iter, node.iter, ctx)


def _unannotated_params(fn: cst.FunctionDef | None) -> set[str]:
    if fn is None:
        return set()
    p = fn.params
    return {x.name.value for x in [*p.posonly_params, *p.params, *p.kwonly_params] if x.annotation is None}
