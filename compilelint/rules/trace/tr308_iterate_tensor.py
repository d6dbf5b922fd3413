"""TR308: iterating over a tensor unrolls the loop over its first dimension."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class IterateTensor(Rule):
    code = "TR308"
    name = "trace-unrolled-tensor-iteration"
    family = "trace"
    targets = ("trace",)
    severity = "warning"
    message = ("iterating over a tensor: torch.jit.trace unrolls the loop for the example's first-dimension size, "
               "so another batch/length gives wrong results or fails; use batched tensor ops over that dimension, "
               "or script this loop")
    doc = RuleDoc(
        what="Flags `for row in t` and comprehensions over a tensor `t` in traced code.",
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
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, feats: list[torch.Tensor]):
        for f in feats:
            x = x + f.mean()
        return x / x.norm(dim=1, keepdim=True)
''', inputs="[(torch.randn(2, 3), [torch.randn(2)]), (torch.randn(4, 3), [torch.randn(3)])]"),
    )

    def _check(self, iterable: cst.BaseExpression, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if facts.is_known_tensor(iterable) and not facts.has_dynamic_shape(iterable):
            ctx.report(iterable)

    def visit_For(self, node: cst.For, ctx) -> None:  # noqa: ANN001
        self._check(node.iter, ctx)

    def visit_CompFor(self, node: cst.CompFor, ctx) -> None:  # noqa: ANN001
        self._check(node.iter, ctx)
