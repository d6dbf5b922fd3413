"""TS162: `torch.nonzero(x, as_tuple=...)` / `x.nonzero(as_tuple=...)`: TorchScript has no `as_tuple`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class NonzeroAsTuple(SemanticScriptRule):
    code = "TS162"
    call_gate = gate(names={"torch.nonzero"}, methods={"nonzero"})
    name = "nonzero-as-tuple-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = 'scripted `nonzero` has no `as_tuple`; use `torch.where(mask)`'
    doc = RuleDoc(
        what="Flags `torch.nonzero(..., as_tuple=...)` and `t.nonzero(as_tuple=...)` in code `torch.jit.script` compiles.",
        why=(('The TorchScript schemas of `aten::nonzero` take only the tensor, so any `as_tuple` keyword, even '
              '`as_tuple=False`, fails with `Arguments for call are not valid` (verified on 2.13). '
              '`torch.where(cond)` with one argument returns the same tuple of index tensors and scripts, and so '
              'does `x.nonzero().unbind(1)`. For `as_tuple=True` use `torch.where(mask)` or '
              '`mask.nonzero().unbind(1)`; for `as_tuple=False` drop the argument.')),
        example="rows, slot = (chosen == e).nonzero(as_tuple=True)",
        use_instead="rows, slot = (chosen == e).nonzero().unbind(1)",
        fix_safety=("Unsafe: `x.nonzero().unbind(1)` equals `nonzero(as_tuple=True)` for inputs of rank 1 or "
                    "more, but a 0-d input gives an empty tuple instead of one tensor."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, chosen):
        rows, slot = (chosen == 1).nonzero(as_tuple=True)  # <-
        return rows + slot
''', inputs="[(torch.tensor([[0, 1], [1, 2]]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0, as_tuple=False)  # <-
        return idx
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, chosen):
        rows, slot = (chosen == 1).nonzero().unbind(1)
        r2, s2 = torch.where(chosen == 1)
        return rows + slot + r2 + s2 + torch.nonzero(chosen).sum()
''', inputs="[(torch.tensor([[0, 1], [1, 2]]),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not any(a.keyword is not None and a.keyword.value == "as_tuple" for a in node.args):
            return
        func = node.func
        if ctx.qualify(func) == "torch.nonzero" or (
                type(func) is cst.Attribute and func.attr.value == "nonzero"
                and ctx.facts.kind(func.value) in (Kind.TENSOR, Kind.UNKNOWN) and ctx.qualify(func.value) != "torch"):
            fix = self._fix(node)
            if fix is None:
                ctx.report(node)
            else:
                ctx.report(node, fix=fix, unsafe_fix=True)

    @staticmethod
    def _fix(node: cst.Call) -> tuple | None:
        """Drop `as_tuple=`; for `as_tuple=True` add `.unbind(1)` (the same tuple of index tensors for inputs of
        rank >= 1; unsafe: a 0-d input gives an empty tuple instead of one tensor)."""
        flag = next(a.value for a in node.args if a.keyword is not None and a.keyword.value == "as_tuple")
        if not (type(flag) is cst.Name and flag.value in ("True", "False")):
            return None
        args = [a for a in node.args if not (a.keyword is not None and a.keyword.value == "as_tuple")]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        plain = node.with_changes(args=args)
        if flag.value == "False":
            return (node, plain, "drop `as_tuple=False` (the default)")
        unbound = cst.Call(func=cst.Attribute(value=plain, attr=cst.Name("unbind")), args=[cst.Arg(cst.Integer("1"))])
        return (node, unbound, "`nonzero().unbind(1)`: the same tuple of index tensors")
