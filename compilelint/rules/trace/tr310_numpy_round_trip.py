"""TR310: `.numpy()` (or numpy on tensors) inside traced code: the result is a constant."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct
from compilelint.semantic.frames import runtime_kind


class NumpyRoundTrip(Rule):
    code = "TR310"
    construct = Construct.NUMPY
    call_gate = gate(heads={"numpy"}, methods={"numpy"})
    name = "trace-frozen-numpy-round-trip"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = 'tensor -> numpy: the trace freezes what comes back'
    doc = RuleDoc(
        what="Flags `.numpy()` on a tensor and numpy functions applied to tensors in traced code.",
        why=("numpy works on a copy of the data the tracer does not record; converting back gives a tensor "
             "that the trace stores as a constant (TracerWarning). Other inputs get the example's result."),
        example="order = np.argsort(-scores.numpy())\nreturn boxes[torch.from_numpy(order)]",
        use_instead="order = torch.argsort(scores, descending=True)\nreturn boxes[order]",
    )
    bad = (
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def forward(self, scores, boxes):
        order = np.argsort(-scores.detach().numpy())  # <-
        return boxes[torch.from_numpy(order)]
''', inputs="[(torch.tensor([0.1, 0.9, 0.5]), torch.randn(3, 4)), (torch.tensor([0.9, 0.1, 0.5]), torch.randn(3, 4))]"),
    )
    good = (
        Example('''
import numpy as np
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("anchors", torch.from_numpy(np.linspace(0, 1, 4, dtype=np.float32)))
    def forward(self, scores, boxes):
        order = torch.argsort(scores, descending=True)
        return boxes[order] + self.anchors
''', inputs="[(torch.tensor([0.1, 0.9, 0.5]), torch.randn(3, 4)), (torch.tensor([0.9, 0.1, 0.5]), torch.randn(3, 4))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "numpy" and not node.args:
            if ctx.facts.is_tensor(func.value):
                ctx.report(node)
            return
        name = ctx.qualify(func) or ""
        if name.startswith("numpy.") and any(runtime_kind(a.value, ctx) is Kind.TENSOR for a in node.args):
            inner = [a.value for a in node.args]
            # np.f(t.numpy()) is reported at .numpy()
            if not any(type(v) is cst.Call and type(v.func) is cst.Attribute and v.func.attr.value == "numpy"
                       for v in inner):
                ctx.report(node)
