"""EX707: a loss's per-class `weight=` whose length depends on tensor data (`torch.bincount(y)`,
`torch.unique(y)`) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule

_LOSSES = {"torch.nn.functional.cross_entropy", "torch.nn.functional.nll_loss"}


class ExportDataDependentClassWeight(ExportRule):
    code = "EX707"
    call_gate = gate(names=_LOSSES)
    name = "export-data-dependent-class-weight"
    message = '`weight=` of `{fn}` has a data-dependent length ({source})'
    version_note = ("Verified on 2.13 with torch.export.export, strict=False (the default) and strict=True alike. "
                    "`minlength=` does not help: the length is still max(minlength, y.max() + 1).")
    doc = RuleDoc(
        what=("Flags `F.cross_entropy(..., weight=w)` and `F.nll_loss(..., weight=w)` where `w` is computed from "
              "a tensor whose length depends on data: `torch.bincount(y)` (with or without `minlength`), "
              "`torch.unique(y)`, `x[mask]`, `nonzero()`."),
        why=("Class-balanced losses often weight each class by its count in the batch. `torch.bincount(y, "
             "minlength=C)` has length max(C, y.max() + 1), which export can only know as a symbol u0, and the loss "
             "checks `weight.numel() == C`: a guard on a data-dependent value, which stops the export "
             "(`GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, C)`). Eager "
             "PyTorch and torch.compile (graph break) run it."),
        example=("counts = torch.bincount(y, minlength=C).float()\n"
                 "loss = F.cross_entropy(logits, y, weight=counts.sum() / counts.clamp(min=1))"),
        use_instead=("counts = F.one_hot(y, C).sum(0).float()   # length C, known to export\n"
                     "loss = F.cross_entropy(logits, y, weight=counts.sum() / counts.clamp(min=1))"),
    )
    bad = (
        Example('''import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def forward(self, logits, y):
        counts = torch.bincount(y, minlength=4).float()
        return F.cross_entropy(logits, y, weight=counts.sum() / counts.clamp(min=1))  # <-
''', inputs="[(torch.randn(8, 4), torch.randint(0, 4, (8,)))]"),
        Example('''import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def forward(self, logits, y):
        present = torch.unique(y).float()
        return F.nll_loss(logits.log_softmax(-1), y, weight=present)  # <-
''', inputs="[(torch.randn(8, 4), torch.randint(0, 4, (8,)))]"),
    )
    good = (
        Example('''import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def forward(self, logits, y):
        counts = F.one_hot(y, 4).sum(0).float()
        return F.cross_entropy(logits, y, weight=counts.sum() / counts.clamp(min=1))
''', inputs="[(torch.randn(8, 4), torch.randint(0, 4, (8,)))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.qualify(node.func) or ""
        if fn not in _LOSSES:
            return
        weight = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "weight"), None)
        if weight is not None and ctx.facts.has_dynamic_shape(weight):
            short = "F." + fn.rsplit(".", 1)[-1]
            self.report(ctx, node, self.message.format(fn=short, source=f"`{brief(ctx.code_for(weight), 24)}`"))
