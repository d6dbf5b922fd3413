"""EX714: `torch.combinations` in code torch.export runs."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportCombinations(ExportRule):
    code = "EX714"
    call_gate = gate(names={"torch.combinations"})
    name = "export-combinations"
    torch_error = ("PendingUnbackedSymbolNotFound",)
    message = '`torch.combinations` in export; use `torch.triu_indices`'
    version_note = ("Verified on 2.13 with torch.export.export(strict=False); torch.compile(fullgraph=True) fails "
                    "with InternalTorchDynamoError on it, and without fullgraph breaks the graph (GB404).")
    doc = RuleDoc(
        what="Flags calls of `torch.combinations` in a `forward` (or what it calls) that torch.export runs.",
        why=("Pairwise heads (relation scores, pairwise box distances) enumerate pairs with "
             "`torch.combinations(torch.arange(n), 2)`. Its output size, n*(n-1)/2, is known from n, but torch "
             "computes it through a masked select, which export can only size with an unbacked symbol; the "
             "symbol reaches no output and non-strict export stops with `PendingUnbackedSymbolNotFound`. "
             "`torch.triu_indices(n, n, offset=1)` gives the same pairs with a size export knows."),
        example=("pairs = torch.combinations(torch.arange(n), r=2)\n"
                 "d = boxes[pairs[:, 0]] - boxes[pairs[:, 1]]"),
        use_instead=("i, j = torch.triu_indices(n, n, offset=1)\n"
                     "d = boxes[i] - boxes[j]"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes):
        n = boxes.shape[0]
        pairs = torch.combinations(torch.arange(n, device=boxes.device), r=2)  # <-
        return (boxes[pairs[:, 0]] - boxes[pairs[:, 1]]).abs().sum(-1)
''', inputs="[(torch.randn(6, 4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rel = torch.nn.Linear(16, 1)

    def forward(self, feats):
        ids = torch.arange(feats.shape[0])
        pairs = torch.combinations(ids)  # <-
        return self.rel(torch.cat([feats[pairs[:, 0]], feats[pairs[:, 1]]], -1)).squeeze(-1)
''', inputs="[(torch.randn(5, 8),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes):
        n = boxes.shape[0]
        i, j = torch.triu_indices(n, n, offset=1, device=boxes.device)
        return (boxes[i] - boxes[j]).abs().sum(-1)
''', inputs="[(torch.randn(6, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.qualify(node.func) == "torch.combinations":
            self.report(ctx, node, self.message)
