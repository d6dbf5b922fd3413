"""EX716: `Tensor.data` in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule


class ExportTensorDataAttribute(ExportRule):
    code = "EX716"
    file_gate = (b"data",)
    name = "export-tensor-data-attribute"
    torch_error = ("fake tensor in the exported program constant's list",)
    torch_names_line = False  # raised after tracing, about the traced program's constants
    message = '`{expr}.data` in exported code; use `.detach()`'
    version_note = ("Verified on 2.13 with torch.export.export(strict=False), for `.data` of an input, of an "
                    "activation and of a parameter (`self.proj.weight.data.clamp_(-1, 1)`); torch.compile "
                    "(fullgraph=True) traces all three.")
    doc = RuleDoc(
        what="Flags reading `.data` of a tensor in a `forward` (or what it calls) that torch.export runs.",
        why=("`.data` is the pre-1.0 way to step around autograd (`out.data`, `w.data.clamp_()` in forward). Under "
             "export it yields a tensor that export keeps as a constant of the exported program; constants must "
             "be real tensors, and non-strict export stops with `RuntimeError: We found a fake tensor in the "
             "exported program constant's list` without naming a line of the model. `.detach()` is traced."),
        example="h = self.proj(x)\nreturn h.data * self.scale",
        use_instead="h = self.proj(x)\nreturn h.detach() * self.scale",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        return h.data * 2  # <-
''', inputs="[(torch.randn(3, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.proj.weight.data.clamp_(-1.0, 1.0)  # <-
        return self.proj(x)
''', inputs="[(torch.randn(3, 4),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = self.proj(x)
        return h.detach() * 2
''', inputs="[(torch.randn(3, 4),)]"),
        Example('''import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.proj.weight.data.clamp_(-1.0, 1.0)  # __init__ runs before export, on real tensors

    def forward(self, x):
        return F.linear(x, self.proj.weight.clamp(-1.0, 1.0), self.proj.bias)
''', inputs="[(torch.randn(3, 4),)]"),
    )

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if node.attr.value == "data" and (facts.is_tensor(node.value) or facts.is_submodule_tensor(node.value)):
            self.report(ctx, node, self.message.format(expr=brief(ctx.code_for(node.value), 24)))
