"""GB438 one-hot-without-num-classes: Flags `F.one_hot(labels)` with no `num_classes` (or -1) in compiled code"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import one_hot_without_num_classes
from compilelint.torchapi.shapes import ONE_HOT


class OneHotWithoutNumClasses(CallBreakRule):
    code = 'GB438'
    name = 'one-hot-without-num-classes'
    call_gate = gate(names={ONE_HOT})
    loop_fix = "pass num_classes="
    gb_id = 'GB0246'
    severity = "warning"
    message = '`one_hot` without `num_classes` breaks the graph'
    version_note = ('Verified on 2.13: GB0246 ("Attempted to use `torch.nn.functional.one_hot` with data-dependent '
                    'output shape"), also with capture_scalar_outputs = True; with num_classes the call is traced. '
                    'torch.export fails on it too (EX715).')
    doc = RuleDoc(
        what='Flags `torch.nn.functional.one_hot(labels)` in compiled code when `num_classes` is missing or -1.',
        why=("Without `num_classes`, one_hot makes `labels.max() + 1` columns: the output shape depends on the "
             "values in the tensor. Dynamo does not trace that and breaks the graph at the call (GB0246, its own "
             "id for one_hot), so the loss or head around it runs in two graphs with eager code between."),
        example='target = F.one_hot(labels).float()',
        use_instead='target = F.one_hot(labels, num_classes=self.num_classes).float()',
    )
    bad = (
        Example('''import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def forward(self, logits, labels):
        target = F.one_hot(labels).float()  # <-
        return (logits[:, : target.shape[1]] - target).pow(2).mean()
''', inputs="[(torch.randn(4, 5), torch.tensor([0, 2, 1, 2])), (torch.randn(4, 5), torch.tensor([3, 1, 0, 4]))]"),
        Example('''import torch
from torch.nn.functional import one_hot

class M(torch.nn.Module):
    def forward(self, x, ids):
        return x * one_hot(ids, -1).sum()  # <-
''', inputs="[(torch.randn(3), torch.tensor([0, 2, 1]))]"),
    )
    good = (
        Example('''import torch
import torch.nn.functional as F

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.num_classes = 5

    def forward(self, logits, labels):
        target = F.one_hot(labels, num_classes=self.num_classes).float()
        return (logits - target).pow(2).mean()
''', inputs="[(torch.randn(4, 5), torch.tensor([0, 2, 1, 2])), (torch.randn(4, 5), torch.tensor([3, 1, 0, 4]))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and one_hot_without_num_classes(node, ctx):
            return "GB0246"
        return None
