"""TR306: `assert` on a tensor value: the check is evaluated once at trace time and dropped."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class TensorAssert(Rule):
    code = "TR306"
    name = "trace-dropped-tensor-assert"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '`assert` on a tensor value is checked only while tracing'
    doc = RuleDoc(
        what="Flags `assert` statements whose condition reads tensor data, in traced code.",
        why=("The assertion converts a tensor to a Python bool (TracerWarning) while tracing; the traced graph "
             "contains no check at all, so invalid inputs pass through silently."),
        example="assert (boxes[:, 2] >= boxes[:, 0]).all()",
        use_instead="boxes = torch.cat([boxes[:, :2], torch.maximum(boxes[:, 2:], boxes[:, :2])], 1)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, probs):
        assert (probs >= 0).all(), "probabilities must be non-negative"  # <-
        return probs / probs.sum()
''', inputs="[(torch.tensor([0.2, 0.8]),), (torch.tensor([0.5, 0.5]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, probs):
        assert probs.dim() == 1, "expects a vector"
        probs = probs.clamp(min=0)
        return probs / probs.sum()
''', inputs="[(torch.tensor([0.2, 0.8]),), (torch.tensor([0.5, 0.5]),)]"),
    )

    def visit_Assert(self, node: cst.Assert, ctx) -> None:  # noqa: ANN001
        if ctx.facts.tests_tensor_truth(node.test):
            ctx.report(node.test)
