"""EX711: Python's builtin `max(t)` / `min(t)` of a single tensor under non-strict torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportBuiltinMaxOfTensor(ExportRule):
    code = "EX711"
    call_gate = gate(bare={"max", "min"})
    name = "export-builtin-max-of-tensor"
    torch_error = ("missing 1 required positional argument",)
    message = '`{fn}(t)` of one tensor fails in export; use `t.{fn}()`'
    version_note = ("Verified on 2.13 and 2.11 with torch.export.export(strict=False): "
                    "torch/_export/non_strict_utils.py `_override_builtin_ops` hands a lone tensor to "
                    "torch.maximum/minimum. strict=True, eager and torch.compile run it; `max(a, b)` of two tensors "
                    "and `max([a, b])` export.")
    doc = RuleDoc(
        what="Flags `max(t)` and `min(t)` with a single tensor argument (no `key=`, no `default=`).",
        why=(("Python's `max(t)` iterates the tensor's first dimension and compares the elements: slow, but it runs"
              ' in eager mode and under torch.compile. Non-strict torch.export replaces the builtins while it '
              'traces, mapping `max(a, b)` of tensors to `torch.maximum(a, b)`; a single tensor goes to '
              '`torch.maximum(t)` too, which fails: `TypeError: maximum() missing 1 required positional arguments: '
              '"other"`. Use `t.max()` / `t.amax()` (or the `min` forms) on the one tensor.')),
        example="best = max(scores)",
        use_instead="best = scores.max()   # or scores.amax(dim=0)",
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, scores):
        best = max(scores)  # <-
        return scores / best
''', inputs="[(torch.tensor([0.2, 0.8, 0.4]),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        near = min(depth.flatten())  # <-
        return depth - near
''', inputs="[(torch.rand(4, 4),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, scores):
        best = scores.max()
        return scores / best
''', inputs="[(torch.tensor([0.2, 0.8, 0.4]),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, depth):
        near = min(depth.shape[0], 2)
        return torch.stack([max(depth, depth * 0.5), min(depth, depth.flip(0))])[:, :near]
''', inputs="[(torch.rand(4, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if (type(func) is not cst.Name or func.value not in ("max", "min") or len(node.args) != 1
                or node.args[0].keyword is not None or node.args[0].star
                or func.value in ctx.facts.env or func.value in ctx.facts.aliases):
            return
        if ctx.facts.is_tensor(node.args[0].value):
            fn = func.value
            self.report(ctx, node, self.message.format(fn=fn, torch_fn="maximum" if fn == "max" else "minimum"))
