from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class ValueLoopBound(Rule):
    code = "RC503"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "tensor-value-loop-bound"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`{expr}` loops over a value from tensor data: each value recompiles'
    doc = RuleDoc(
        what=("Flags `for ... in range(n)` (and comprehensions over it) where `n` comes from tensor data, in compiled "
              "code, when the loop body does tensor work (a body of pure Python bookkeeping has no graph to guard)."),
        why=("The `.item()` breaks the graph; the resumed frame receives `n` as a Python int and the unrolled loop "
             "specialises on it. Verified on 2.13 (backend=\"eager\"): four calls whose count was 1, 2, 3, 4 gave three "
             "recompiles, guard failures reported on the `n = int(x[0].item())` line (`- 1/0: ___stack1 == 1.0  # n = int(x[0].item())`, in the resume function). A value used "
             "only in arithmetic (`x * s`) recompiles once and then becomes dynamic; a loop bound never does. Not flagged: a "
             "loop over `t.tolist()` (verified: one recompile over 6 calls with new values, then the ints are dynamic; "
             "only the list's length is specialised), and a `range(n)` loop whose body does only Python bookkeeping "
             "(no graph, no guard)."),
        example="n = int(counts.sum().item())\nfor i in range(n):\n    y = y + 1",
        use_instead="y = y + counts.sum()  # or a mask: torch.arange(L) < counts.sum()",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = int(x[0].item())
        y = x
        for _ in range(n):  # <-
            y = y * 0.5
        return y
''', inputs="[(torch.full((3,), float(i)),) for i in range(1, 5)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k):
        rows = [x.roll(i, 0) for i in range(int(k.sum()))]  # <-
        return torch.stack(rows).mean(0)
''', inputs="[(torch.randn(4, 3), torch.tensor([i, 1])) for i in range(1, 5)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = x[0]
        return x * torch.pow(0.5, n)
''', inputs="[(torch.full((3,), float(i)),) for i in range(1, 5)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k):
        n = k.sum()  # stays a tensor: the same result for any n <= 8, one graph
        rolls = torch.stack([x.roll(i, 0) for i in range(8)])
        weights = (torch.arange(8) < n).to(x.dtype)
        return (rolls * weights[:, None, None]).sum(0) / n
''', inputs="[(torch.randn(4, 3), torch.tensor([i, 1])) for i in range(1, 5)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._pending: dict[int, tuple[cst.For, str]] = {}

    def _state(self) -> tuple[None, dict]:
        return None, self.__dict__.setdefault("_pending", {})

    def _value_iter(self, it: cst.BaseExpression, ctx) -> str | None:  # noqa: ANN001
        """The loop's description when `it` iterates a value read out of tensor data, else None."""
        if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "range" and it.args:
            if any(ctx.facts.kind(a.value) is Kind.VALUE for a in it.args):
                return ctx.code_for(it)
            return None
        # Not `for v in t.tolist()`: verified on 2.13, the resumed loop recompiles once and then treats the
        # list's ints as dynamic (6 calls with new values, 1 recompile); only the list's length is specialised.
        return None

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        # Only a hazard when the unrolled body does tensor work: a body of pure Python (bookkeeping on
        # the list) has no graph to guard, and Dynamo runs it eagerly (verified: no recompile).
        expr = self._value_iter(node.iter, ctx)
        if expr is not None:
            self._state()[1][id(node)] = (node, expr)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        expr = self._value_iter(node.iter, ctx)
        comp = ctx.parent
        elt = getattr(comp, "elt", None) or getattr(comp, "value", None)
        if expr is not None and elt is not None and ctx.facts.kind(elt) is Kind.TENSOR:
            ctx.report(node.iter, self.message.format(expr=expr))

    def _tensor_work(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        _, pending = self._state()
        if not pending or ctx.facts.kind(node) is not Kind.TENSOR:
            return
        anc = ctx.ancestors
        for i, a in enumerate(anc):
            if id(a) in pending and i + 1 < len(anc) and isinstance(
                    anc[i + 1], (cst.BaseCompoundStatement, cst.SimpleStatementLine)):
                loop, expr = pending.pop(id(a))
                ctx.report(loop.iter, self.message.format(expr=expr))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._tensor_work(node, ctx)

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:  # noqa: ANN001
        self._tensor_work(node, ctx)
