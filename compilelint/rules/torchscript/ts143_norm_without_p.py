"""TS143: `Tensor.norm(dim=...)` without `p`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class NormWithoutP(SemanticScriptRule):
    code = "TS143"
    call_gate = gate(methods={"norm"})
    name = "norm-dim-without-p-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`Tensor.norm` with `dim=` needs `p=` when scripted; pass `p=2`'
    doc = RuleDoc(
        what="Flags the method form `t.norm(dim=...)` (with `dim` but no `p`) in code `torch.jit.script` compiles.",
        why=('Every `aten::norm` schema with `dim` takes `p` before it without a default, so scripting fails with '
             "`Arguments for call are not valid ... Argument p not provided`. Eager Python defaults `p` to 'fro', "
             'which over the given dims is the 2-norm, so `p=2` keeps the result. `torch.norm(x, dim=1)` and '
             '`torch.linalg.norm` script. Pass `p=2` (`x.norm(p=2, dim=...)`, the same value) or use '
             '`torch.linalg.vector_norm(x, dim=...)`.'),
        example="feats = feats / feats.norm(dim=1, keepdim=True)",
        use_instead="feats = feats / feats.norm(p=2, dim=1, keepdim=True)",
        fix_safety=("Safe: `p=2` is the norm eager Python computes when `p` is left out, so the values do not "
                    "change."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x / x.norm(dim=1, keepdim=True)  # <-
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x / x.norm(p=2, dim=1, keepdim=True) + torch.norm(x, dim=1, keepdim=True) + x.norm()
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (ctx.function is not None and type(func) is cst.Attribute and func.attr.value == "norm"):
            return
        if ctx.facts.kind(func.value) is not Kind.TENSOR or ctx.qualify(func.value) in ("torch", "torch.linalg"):
            return
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        positional = [a for a in node.args if a.keyword is None]
        if "dim" in keywords and "p" not in keywords and not positional:
            p_arg = cst.Arg(keyword=cst.Name("p"), value=cst.Integer("2"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace("")),
                            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            fixed = node.with_changes(args=[p_arg, *node.args])
            ctx.report(node, fix=(node, fixed, "pass `p=2` (the value eager Python computes)"))
