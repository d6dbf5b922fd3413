from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


class ValueLoopBound(Rule):
    code = "RC503"
    name = "tensor-value-loop-bound"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = ("`{expr}` loops over a Python value read out of tensor data (`.item()`/`.tolist()`/`int(t)`): after the "
               "graph break Dynamo unrolls the loop and guards on the exact value, so every distinct value recompiles "
               "until the recompile limit (8), then runs eager; replace the loop with tensor ops (masks, torch.arange "
               "compared to the count, cumsum) so the count stays on device")
    doc = RuleDoc(
        what=("Flags `for ... in range(n)` where `n` comes from tensor data, and `for v in t.tolist()`, in compiled "
              "code, when the loop body does tensor work (a body of pure Python bookkeeping has no graph to guard)."),
        why=("The `.item()` breaks the graph; the resumed frame receives `n` as a Python int and the unrolled loop "
             "specialises on it. Verified on 2.13 (backend=\"eager\"): four calls whose count was 1, 2, 3, 4 gave three "
             "recompiles, guard failures reported on the `n = int(x[0].item())` line (`___stack0 == 1`). A value used "
             "only in arithmetic (`x * s`) recompiles once and then becomes dynamic; a loop bound never does. A loop "
             "over `ids.tolist()` whose body only does Python bookkeeping did not recompile (Dynamo runs that resumed "
             "code eagerly), so it is not flagged."),
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
    def forward(self, x, lengths):
        out = []
        for n in lengths.tolist():  # <-
            out.append(x[:n].sum(0))
        return torch.stack(out)
''', inputs="[(torch.randn(6, 3), torch.tensor([i, i + 1])) for i in range(1, 5)]"),
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
    def forward(self, x, lengths):
        steps = torch.arange(x.shape[0]).unsqueeze(0)
        mask = (steps < lengths.unsqueeze(1)).to(x.dtype)
        return mask @ x
''', inputs="[(torch.randn(6, 3), torch.tensor([i, i + 1])) for i in range(1, 5)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._lists: set[str] = set()
        self._pending: dict[int, tuple[cst.For, str]] = {}

    def _state(self) -> tuple[set[str], dict]:
        return self.__dict__.setdefault("_lists", set()), self.__dict__.setdefault("_pending", {})

    def _value_iter(self, it: cst.BaseExpression, ctx) -> str | None:  # noqa: ANN001
        """The loop's description when `it` iterates a value read out of tensor data, else None."""
        lists, _ = self._state()
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" and it.args:
            if any(ctx.facts.kind(a.value) is Kind.VALUE for a in it.args):
                return ctx.code_for(it)
            return None
        # `t.tolist()` directly or through a local; not `t.numpy()`, which Dynamo 2.13 traces as a tensor.
        if _is_tolist(it, ctx) or (isinstance(it, cst.Name) and it.value in lists):
            return f"for ... in {ctx.code_for(it)}"
        return None

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        lists, _ = self._state()
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                if _is_tolist(node.value, ctx):
                    lists.add(t.target.value)
                else:
                    lists.discard(t.target.value)

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


def _is_tolist(expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "tolist"
            and not expr.args and ctx.facts.is_tensor(expr.func.value))
