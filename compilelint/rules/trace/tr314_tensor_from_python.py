"""TR314: `torch.tensor(...)` built from values read out of tensors (or their sizes)."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.frames import runtime_kind

_SIZES = (Kind.SIZE, Kind.SHAPE)  # what facts.is_shape_dependent means, at run time

_CONSTRUCTORS = {"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor",
                 "torch.from_numpy", "torch.BoolTensor", "torch.IntTensor"}


class TensorFromPython(Rule):
    code = "TR314"
    call_gate = gate(names=_CONSTRUCTORS, methods={"new_tensor"})
    name = "trace-frozen-tensor-constructor"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = "`{fn}(...)` of {what}: the trace freezes the {noun}"
    doc = RuleDoc(
        what=("Flags `torch.tensor()`/`torch.as_tensor()`/`torch.from_numpy()`/`x.new_tensor()` whose data comes from tensor values "
              "(error) or tensor sizes (warning), in traced code."),
        why=("A constructor from Python data is a constant for the tracer (TracerWarning 'torch.tensor results "
             "are registered as constants'). Values or sizes read from the example input stay those of the "
             "example."),
        example="count = torch.tensor([x.shape[0], (x > 0).sum().item()])",
        use_instead="count = torch.stack([x.new_ones(()).mul(x.size(0)), (x > 0).sum()])",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        peak = torch.tensor(x.max().item())  # <-
        return x / peak
''', inputs="[(torch.tensor([1., 2.]),), (torch.tensor([4., 8.]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, boxes, image):
        h, w = image.shape[-2:]
        return boxes * boxes.new_tensor([w, h, w, h])  # <-
''', inputs="[(torch.ones(2, 4), torch.zeros(1, 8, 6)), (torch.ones(2, 4), torch.zeros(1, 4, 9))]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        n = torch.tensor(float(x.shape[0]))  # <-
        return x.sum(0) / n
''', inputs="[(torch.ones(2, 3),), (torch.ones(5, 3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        peak = x.max()
        return x / peak
''', inputs="[(torch.tensor([1., 2.]),), (torch.tensor([4., 8.]),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.qualify(node.func) or ""
        func = node.func
        if (type(func) is cst.Attribute and func.attr.value == "new_tensor"
                and ctx.facts.is_tensor(func.value)):
            fn = "Tensor.new_tensor"
        if fn not in _CONSTRUCTORS and fn != "Tensor.new_tensor":
            return
        if not node.args or node.args[0].keyword is not None:
            return
        data = node.args[0].value
        kind = runtime_kind(data, ctx)
        if kind in (Kind.VALUE, Kind.TENSOR) or (type(data) in (cst.List, cst.Tuple) and any(
                runtime_kind(e.value, ctx) in (Kind.VALUE, Kind.TENSOR) for e in data.elements)):
            ctx.report(node, self.message.format(fn=fn, what="values read from tensor data", noun="values"))
        elif kind in _SIZES or (type(data) in (cst.List, cst.Tuple) and any(
                runtime_kind(e.value, ctx) in _SIZES for e in data.elements)) or (
                type(data) is cst.Call and any(runtime_kind(a.value, ctx) in _SIZES for a in data.args)):
            ctx.report(node, self.message.format(fn=fn, what="tensor sizes", noun="sizes"), severity="warning")
