"""TR308: iterating over a tensor unrolls the loop over its first dimension."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct
from compilelint.semantic.loops import loop_body, walks_blocks_by_position


class IterateTensor(Rule):
    code = "TR308"
    construct = Construct.LOOP_OVER_TENSOR_SIZE
    call_gate = gate(bare={"max", "min", "sorted", "any", "all", "sum", "list", "tuple"})
    name = "trace-unrolled-tensor-iteration"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = 'iterating over a tensor: the trace unrolls the loop'
    doc = RuleDoc(
        what=("Flags `for row in t` (and over `t.unbind(d)` / `t.split(n)`), comprehensions over a tensor `t`, and builtins that iterate a tensor "
              "(`sum(t)`, `list(t)`; `max(t)`/`min(t)`/`sorted(t)`/`any(t)`/`all(t)`, which also compare its "
              "values, are reported as errors), in traced code."),
        why=("Iterating calls `t.unbind(0)` for the example's size (TracerWarning); the traced graph has one "
             "copy of the body per row of the example and ignores extra rows (or fails on fewer)."),
        example="return torch.stack([row / row.norm() for row in x])",
        use_instead="return x / x.norm(dim=1, keepdim=True)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        probs = x.softmax(-1)
        return torch.stack([p / p.max() for p in probs])  # <-
''', inputs="[(torch.randn(2, 3),), (torch.randn(4, 3),)]"),
    )
    bad = bad + (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores):
        return scores / max(scores)  # <-
''', inputs="[(torch.tensor([0.2, 0.8, 0.4]),), (torch.tensor([0.1, 0.3, 0.6]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, feats: list[torch.Tensor]):
        for f in feats:
            x = x + f.mean()
        return x / x.norm(dim=1, keepdim=True) / x.max()
''', inputs="[(torch.randn(2, 3), [torch.randn(2)]), (torch.randn(4, 3), [torch.randn(3)])]"),
    )

    value_message = '`{fn}()` over a tensor: the trace freezes the result; use a tensor op'

    def _check(self, iterable: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if (type(iterable) is cst.Call and type(iterable.func) is cst.Name
                and iterable.func.value in ("enumerate", "zip", "reversed")):
            for a in iterable.args:
                self._check(a.value, ctx)
            return
        if facts.is_library_module_output(iterable):
            return  # a block's output: often a list of features, not one tensor
        if facts.is_known_tensor(iterable) and not facts.has_dynamic_shape(iterable):
            ctx.report(iterable)
        elif (type(iterable) is cst.Call and type(iterable.func) is cst.Attribute
              and iterable.func.attr.value in ("unbind", "split") and facts.is_tensor(iterable.func.value)
              and not facts.has_dynamic_shape(iterable.func.value)):
            ctx.report(iterable)  # `for u in x.unbind(1)`: as many iterations as the example's size

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        if not walks_blocks_by_position(node, loop_body(node, ctx.ancestors), ctx.class_facts):
            self._check(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        if not walks_blocks_by_position(node, loop_body(node, ctx.ancestors), ctx.class_facts):
            self._check(node.iter, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (type(func) is cst.Name and len(node.args) == 1 and node.args[0].star == ""):
            return
        arg = node.args[0].value
        facts = ctx.facts
        if facts.has_dynamic_shape(arg):
            return  # TR304
        if func.value in ("max", "min", "sorted", "any", "all") and facts.is_tensor(arg):
            # compares tensor elements: value-dependent (also for a list of tensors)
            ctx.report(node, self.value_message.format(fn=func.value), severity="error")
        elif func.value in ("sum", "list", "tuple") and facts.is_known_tensor(arg):
            ctx.report(node)
