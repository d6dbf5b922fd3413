"""EX717: a tensor written into a slice bounded by a data-dependent number, under torch.export on torch 2.11."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.grad import grad_recorded_slice_bound

# The snippets below are the ones run on torch 2.11: the four bad ones failed
# there on their marked line, the two good ones exported. On 2.13 all six export (EX713 / EX703's good twins).


class ExportDataDependentSliceWriteOldTorch(ExportRule):
    code = "EX717"
    name = "export-data-dependent-slice-write-old-torch"
    torch_error = ("GuardOnDataDependentSymNode",)
    max_torch = "2.11"  # verified there; 2.13 exports these writes; 2.12 was not checked
    verified_on = "2.11"
    message = '`{target}` write into a slice bounded by data `{bound}` (torch 2.11)'
    version_note = ("Verified on torch 2.11 with torch.export.export(strict=False): "
                    "`canvas[:, :n] = feats[:, :n] + bias[:n]` (also after `torch._check(n >= 0)`), "
                    "`y[:, :n] += 1.0` with n from `.item()`, and `out[:n] = kept` with n the size of a "
                    "data-dependent tensor fail on the write; a Python number written into the slice "
                    "(`out[b, n:] = 0`) and a mask export. On 2.13 every one of them exports and 2.12 was not "
                    "checked, so the rule is off unless the project sets `torch-version` to 2.11 or older. Where "
                    "EX713 reports the write (it also fails on 2.13), this rule stays silent.")
    doc = RuleDoc(
        what=("For projects on torch 2.11 or older (`torch-version` in `[tool.compilelint]`): flags a tensor "
              "written into a slice of a tensor (`out[:, :n] = v`, `out[:, :n] += 1`) where a bound of the slice "
              "is read from tensor data (`.item()`, `.tolist()`, or the size of a data-dependent tensor such "
              "as `x[mask]`), unless EX713 already reports that write."),
        why=(('Under export both the slice `out[:, :n]` and the tensor written into it have sizes export knows '
              'nothing about (unbacked symbols). On torch 2.11, export must prove them equal to copy one into the '
              'other and cannot, so it stops with `GuardOnDataDependentSymNode` on that line; `torch._check(n >= '
              '0)` does not help. A Python number written into the slice needs no such proof and exports. Write '
              'through a mask (`torch.where(keep, value, out)`), or export with torch 2.13, which handles it.')),
        example="n = lengths.max().item()\ny = feats.clone()\ny[:, :n] += 1.0",
        use_instead=("keep = torch.arange(feats.size(1), device=feats.device) < lengths.max()\n"
                     "y = torch.where(keep, feats + 1.0, feats)"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(6))

    def forward(self, feats, lengths):
        n = lengths.max().item()
        torch._check(n >= 0)
        canvas = feats.new_zeros(2, 6)
        canvas[:, :n] = feats[:, :n] + self.bias[:n]  # <-
        return canvas
''', inputs="[(torch.randn(2, 6), torch.tensor([3, 5]))]", max_torch="2.11"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, feats, lengths):
        n = lengths.max().item()
        y = feats.clone()
        y[:, :n] += 1.0  # <-
        return y
''', inputs="[(torch.randn(2, 6), torch.tensor([3, 5]))]", max_torch="2.11"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5][:10]
        out = boxes.new_zeros(10, 4)
        out[: kept.size(0)] = kept  # <-
        return out
''', inputs="[(torch.randn(12, 4), torch.rand(12))]", max_torch="2.11"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5][:10]
        out = boxes.new_zeros(10, 4)
        n = kept.size(0)
        out[:n] = kept  # <-
        return out
''', inputs="[(torch.randn(16, 4), torch.rand(16))]", max_torch="2.11"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    @torch.no_grad()
    def forward(self, x, lengths):
        out = self.proj(x)
        for b, n in enumerate(lengths.tolist()):
            out[b, n:] = 0
        return out
''', inputs="[(torch.randn(2, 6, 8), torch.tensor([3, 5]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, lengths):
        out = self.proj(x)
        keep = torch.arange(out.size(1), device=out.device) < lengths[:, None]
        return out * keep[..., None]
''', inputs="[(torch.randn(2, 6, 8), torch.tensor([3, 5]))]"),
    )

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        for target in node.targets:
            self._check_target(target.target, node.value, node, ctx, augmented=False)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._check_target(node.target, node.value, node, ctx, augmented=True)

    def _check_target(self, target: cst.BaseExpression, value: cst.BaseExpression, owner: cst.CSTNode, ctx,
                      augmented: bool) -> None:  # noqa: ANN001
        facts = ctx.facts
        if type(target) is not cst.Subscript or not facts.is_tensor(target.value):
            return
        # `out[:, :n] += 1` reads the slice and writes a tensor back; `out[:, :n] = 0` writes a number
        if not (augmented or facts.is_tensor(value)):
            return
        bound = next((b for element in target.slice if type(element.slice) is cst.Slice
                      for b in (element.slice.lower, element.slice.upper)
                      if b is not None and (facts.kind(b) is Kind.VALUE or facts.reads_dynamic_size(b))), None)
        if bound is None or grad_recorded_slice_bound(target, value, ctx) is not None:
            return
        self.report(ctx, target, self.message.format(target=brief(ctx.code_for(target), 24), bound=brief(ctx.code_for(bound), 24)), owner)
