"""EX718: a tensor written at a 0-d index computed from tensor data (`out[x.argmax()] = v`) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.constructs import Construct

# Evidence: benchmarks/export_scalar_index.py (reads, one write; raw output of 2.11 and 2.13 in
# docs/bench/export_scalar_index.txt) and the examples below, run on 2.13 in CI and through the harness on 2.11
# (EX718/EX719/GB439 examples 41 passed, 1 skipped).


class ExportWriteAtDataScalarIndex(ExportRule):
    code = "EX718"
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "export-write-at-data-scalar-index"
    torch_error = ("GuardOnDataDependentSymNode",)
    message = '`{target}` writes at data index `{index}`; use `.view(1)`'
    version_note = ("Verified with torch.export.export(strict=False) on 2.13 and on 2.11. Reading at such an "
                    "index exports on 2.13 (2.11 fails on reads too: EX719). `out[i] = v` with `i = best.item()` "
                    "exports on 2.13 (an unbacked int it can carry).")
    doc = RuleDoc(
        what=("Flags an assignment or augmented assignment into a tensor subscript (`out[i] = v`, `out[:, i] += v`) "
              "where an index is a 0-d tensor computed from tensor data: `x.argmax()` / `x.argmin()` without a dim, "
              "`torch.argmax(x)`, or integer arithmetic, `clamp` or `torch.div` of one, directly or through a name."),
        why=(('For a write PyTorch converts a 0-d integer index tensor to a Python number (`out.select(0, '
              'int(i))`). torch.export traces with fake tensors, where that number is an unbacked symbol with no '
              'value, and stops with `GuardOnDataDependentSymNode` on the line of the write. A 1-element index '
              'tensor makes the write an `index_put_`, which needs no number; so does a mask. Index with a '
              '1-element tensor (`out[i.view(1)] = ...`), use `index_fill_`/`index_put_`, or select with a mask and'
              ' `torch.where`.')),
        example="best = scores.argmax()\nout = boxes.clone()\nout[best] = 0.0",
        use_instead="best = scores.argmax()\nout = boxes.clone()\nout[best.view(1)] = 0.0  # or out.index_fill_(0, best.view(1), 0.0)",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        out = boxes.clone()
        out[best] = 0.0  # <-
        return out
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        out = boxes.clone()
        out[:, torch.argmax(scores[:4])] += 1.0  # <-
        return out
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat, feat):
        w = heat.size(1)
        idx = heat.flatten().argmax()
        y = torch.div(idx, w, rounding_mode="floor")
        x = idx % w
        out = feat.clone()
        out[:, y, x] = 0.0  # <-
        return out
''', inputs="[(torch.rand(5, 5), torch.randn(3, 5, 5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = (scores.argmin() + 1).clamp(max=4)
        out = boxes.clone()
        out[best] = boxes[0]  # <-
        return out
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = scores.argmax()
        out = boxes.clone()
        out[best.view(1)] = 0.0
        return out
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        out = boxes.clone()
        out.index_fill_(1, torch.argmax(scores[:4]).view(1), 1.0)
        return out
''', inputs="[(torch.randn(5, 4), torch.rand(5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, heat, feat):
        peak = torch.arange(heat.numel(), device=heat.device) == heat.flatten().argmax()
        return torch.where(peak.view(heat.shape), 0.0, feat)
''', inputs="[(torch.rand(5, 5), torch.randn(3, 5, 5))]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        best = (scores.argmin() + 1).clamp(max=4)
        return boxes[best] * 2.0
''', inputs="[(torch.randn(5, 4), torch.rand(5))]", min_torch="2.13"),
    )

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        for target in node.targets:
            self._check_target(target.target, node, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._check_target(node.target, node, ctx)

    def _check_target(self, target: cst.BaseExpression, owner: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        facts = ctx.facts
        if type(target) is not cst.Subscript or not facts.is_tensor(target.value):
            return
        index = next((element.slice.value for element in target.slice
                      if type(element.slice) is cst.Index and facts.is_data_scalar_index(element.slice.value)), None)
        if index is not None:
            self.report(ctx, target, self.message.format(target=brief(ctx.code_for(target), 20), index=brief(ctx.code_for(index), 20),
                                                         value=brief(ctx.code_for(target.value), 24)), owner)
