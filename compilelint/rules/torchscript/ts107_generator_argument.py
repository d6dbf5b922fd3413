"""TS107: generator expressions passed to `sum()` / `tuple()`."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc

# Calls that reject a generator expression in TorchScript 2.13 (verified). `any`, `all`, `max`, `min`,
# `list`, `sorted`, `str.join`, `torch.cat`/`torch.stack` accept one.
_REJECTING = {"sum": "use a list comprehension: `sum([...])`",
              "tuple": "use a list comprehension (`tuple(list)` does not script either) or write the tuple out"}


class GeneratorArgument(Rule):
    code = "TS107"
    name = "generator-argument-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = "TorchScript cannot pass a generator expression to `{func}()`; {fix}"
    doc = RuleDoc(
        what="Flags generator expressions passed to `sum()` or `tuple()` in code `torch.jit.script` compiles.",
        why="`sum(t for t in xs)` fails with `Arguments for call are not valid`, `tuple(t for t in xs)` with "
            "`cannot statically infer the expected size of a list`. (`any`, `all`, `max`, `min`, `list`, "
            "`torch.cat` accept a generator in 2.13 and are not flagged.)",
        example="return sum(t * w for t in xs)",
        use_instead="return torch.stack([t * w for t in xs]).sum(0)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        sizes = [x.size(0), x.size(1)]
        return x * sum(s * 2 for s in sizes)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        parts = tuple(t * 2 for t in [x, x])  # <-
        return parts[0]
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        sizes = [x.size(0), x.size(1)]
        if any(s > 1 for s in sizes):
            x = x * 2
        return x * sum([s * 2 for s in sizes])
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not (isinstance(node.func, cst.Name) and node.func.value in _REJECTING and len(node.args) == 1):
            return
        if node.func.value in ctx.facts.env:
            return  # a local that shadows the builtin
        gen = node.args[0].value
        if isinstance(gen, cst.GeneratorExp):
            func = node.func.value
            fix = None
            if func == "sum":
                fix = (gen, cst.ListComp(elt=gen.elt, for_in=gen.for_in), "use a list comprehension")
            ctx.report(gen, self.message.format(func=func, fix=_REJECTING[func]), fix=fix)
