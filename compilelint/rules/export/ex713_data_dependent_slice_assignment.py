"""EX713: a slice assignment whose bound is a number read from tensor data, under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc, brief
from compilelint.rules.export._common import ExportRule
from compilelint.semantic.grad import grad_recorded_slice_bound

class ExportDataDependentSliceAssignment(ExportRule):
    code = "EX713"
    name = "export-data-dependent-slice-assignment"
    # 2.13 raises the first after tracing; 2.11 stops earlier, on the write itself, with the second
    torch_error = ("PendingUnbackedSymbolNotFound", "GuardOnDataDependentSymNode")
    message = '`{target}` slice bounded by data value `{bound}`; `torch._check` it'
    version_note = ("Verified on 2.13 with torch.export.export(strict=False): `out[b, n:] = 0`, `out[0, n:] += 1` "
                    "and `y[:, :n] = 0` with n from `.item()` or `.tolist()` fail; after `torch._check(n >= 0)` or "
                    "`torch._check_is_size(n)` they export (`torch._check(n <= T)` alone does not help). Reading a "
                    "slice (`x[:, :n] * 2`) exports, and so does a bound that is the size of a data-dependent tensor "
                    "(`n = kept.size(0)`), a write into a tensor no Parameter produced, and a write under "
                    "torch.no_grad() (a `with` block or the decorator). torch 2.11 (verified) is "
                    "stricter: every bad example fails there too, on the write itself (`GuardOnDataDependentSymNode: "
                    "Could not guard on data-dependent expression Eq(u3, u1)`), but so do writes this rule stays silent "
                    "on: after `torch._check(n >= 0)`, into a tensor no Parameter produced, and with a bound that is "
                    "the size of a data-dependent tensor (those good examples are marked min_torch 2.13). The mask "
                    "written in Use instead exports on both.")
    doc = RuleDoc(
        what=("Flags assignments into a slice of a tensor (`out[b, n:] = 0`, `out[:, :n] += v`) where a bound of the "
              "slice is a Python number read from tensor data (`.item()`, an element of `.tolist()`) and the "
              "tensor written, or the value written into it, is computed from trainable module state (a "
              "submodule's output, a Parameter), unless the function first states a lower bound for the number "
              "with `torch._check(n >= 0)`, `torch._check_is_size(n)` or `torch._constrain_as_size(n)`."),
        why=(('Under export a number read from tensor data is an unbacked symbol: export knows nothing about its '
              'value. Writing into `out[b, n:]` of a tensor that requires grad makes autograd record a view whose '
              'size (`T - n`) export cannot bound; the symbols of that view appear in no output, and non-strict '
              'export stops with `PendingUnbackedSymbolNotFound`. Padding masks built from per-example lengths '
              '(`for b, n in enumerate(lengths.tolist()): out[b, n:] = 0`) are the usual case. State the bound '
              'first (`torch._check_is_size(n)` or `torch._check(n >= 0)`; enough from torch 2.13), or mask instead'
              ' of slicing (`out * (torch.arange(T, device=out.device) < n)`).')),
        example="for b, n in enumerate(lengths.tolist()):\n    out[b, n:] = 0",
        use_instead=("keep = torch.arange(out.size(1), device=out.device) < lengths[:, None]\n"
                     "out = out * keep[..., None]"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, lengths):
        out = self.proj(x)
        for b, n in enumerate(lengths.tolist()):
            out[b, n:] = 0  # <-
        return out
''', inputs="[(torch.randn(2, 6, 8), torch.tensor([3, 5]))]"),
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(6))

    def forward(self, feats, lengths):
        n = lengths.max().item()
        canvas = feats.new_zeros(2, 6)
        canvas[:, :n] = feats[:, :n] + self.bias[:n]  # <-
        return canvas
''', inputs="[(torch.randn(2, 6), torch.tensor([3, 5]))]"),
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
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.zeros(6))

    def forward(self, feats, lengths):
        n = lengths.max().item()
        torch._check(n >= 0)
        canvas = feats.new_zeros(2, 6)
        canvas[:, :n] = feats[:, :n] + self.bias[:n]
        return canvas
''', inputs="[(torch.randn(2, 6), torch.tensor([3, 5]))]", min_torch="2.13"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, feats, lengths):
        n = lengths.max().item()
        y = feats.clone()
        y[:, :n] += 1.0
        return y
''', inputs="[(torch.randn(2, 6), torch.tensor([3, 5]))]", min_torch="2.13"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, boxes, scores):
        kept = boxes[scores > 0.5][:10]
        out = boxes.new_zeros(10, 4)
        out[: kept.size(0)] = kept
        return out
''', inputs="[(torch.randn(12, 4), torch.rand(12))]", min_torch="2.13"),
    )

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        for target in node.targets:
            self._check_target(target.target, node.value, node, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._check_target(node.target, node.value, node, ctx)

    def _check_target(self, target: cst.BaseExpression, value: cst.BaseExpression, owner: cst.CSTNode,
                      ctx) -> None:  # noqa: ANN001
        bound = grad_recorded_slice_bound(target, value, ctx)
        if bound is not None:
            self.report(ctx, target, self.message.format(target=brief(ctx.code_for(target), 24), bound=brief(ctx.code_for(bound), 24)),
                        owner)
