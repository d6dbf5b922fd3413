"""EX715: `F.one_hot` without `num_classes` in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.calls import one_hot_without_num_classes
from compilelint.torchapi.shapes import ONE_HOT


class ExportOneHotWithoutNumClasses(ExportRule):
    code = "EX715"
    call_gate = gate(names={ONE_HOT})
    name = "export-one-hot-without-num-classes"
    torch_error = ("GuardOnDataDependentSymNode", "data-dependent")
    message = '`F.one_hot` without `num_classes`: export fails'
    version_note = "Verified on 2.13 with torch.export.export(strict=False); with num_classes it exports."
    doc = RuleDoc(
        what=("Flags `torch.nn.functional.one_hot(labels)` with `num_classes` missing or -1 in a `forward` (or "
              "what it calls) that torch.export runs."),
        why=("Export traces on fake tensors, where `labels.max()` has no value; one_hot needs it as a concrete "
             "number of columns and export stops with GuardOnDataDependentSymNode. A head that exports must say "
             "how many classes it has."),
        example="target = F.one_hot(labels)",
        use_instead="target = F.one_hot(labels, num_classes=self.num_classes)",
    )
    bad = (
        Example('''import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(5, 8)

    def forward(self, labels):
        onehot = F.one_hot(labels).float()  # <-
        return self.embed(onehot[:, :5])
''', inputs="[(torch.tensor([0, 4, 1, 2]),)]"),
    )
    good = (
        Example('''import torch
import torch.nn.functional as F


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Linear(5, 8)

    def forward(self, labels):
        onehot = F.one_hot(labels, num_classes=5).float()
        return self.embed(onehot)
''', inputs="[(torch.tensor([0, 4, 1, 2]),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if one_hot_without_num_classes(node, ctx):
            self.report(ctx, node, self.message)
