"""TR309: `len(t)` of a tensor is frozen into the trace."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.rules.trace._util import in_condition


class LenOfTensor(Rule):
    code = "TR309"
    call_gate = gate(bare={"len"})
    name = "trace-frozen-tensor-len"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = '`len()` of a tensor is frozen by the trace; use `t.size(0)`'
    doc = RuleDoc(
        what=("Flags `len(t)` on a tensor in traced code (not on what a library block returns: `len(self.attn(x))` is "
              "often the length of a tuple or list)."),
        why=("`len()` returns a plain Python int that the tracer cannot follow (TracerWarning); sizes read with "
             "`t.size(0)` are recorded as graph values. A traced model using `len(t)` keeps the example's length."),
        example="return x.sum(0) / len(x)",
        use_instead="return x.sum(0) / x.size(0)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        return x.sum(0) / len(x)  # <-
''', inputs="[(torch.ones(2, 3),), (torch.ones(4, 3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x: torch.Tensor, feats: list[torch.Tensor]):
        return x.sum(0) / x.size(0) + len(feats)
''', inputs="[(torch.ones(2, 3), [torch.ones(1)]), (torch.ones(4, 3), [torch.ones(1)])]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Name and func.value == "len" and len(node.args) == 1:
            arg = node.args[0].value
            facts = ctx.facts
            if (facts.is_known_tensor(arg) and not facts.has_dynamic_shape(arg)
                    and not facts.is_library_module_output(arg)):  # a block may return a tuple or a list
                if in_condition(ctx) and any(type(a) in (cst.If, cst.While, cst.IfExp) and
                                             "isinstance(" in ctx.code_for(a.test) for a in ctx.ancestors):
                    return  # `isinstance(x, tuple) and len(x) == 2`: a type dispatch
                ctx.report(node)
