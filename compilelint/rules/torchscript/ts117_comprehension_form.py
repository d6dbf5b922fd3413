"""TS117: comprehensions with `if` clauses or several `for`s."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class ComprehensionForm(Rule):
    code = "TS117"
    name = "comprehension-form-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'comprehension with {form} is not scriptable; write the loop'
    doc = RuleDoc(
        what="Flags list and dict comprehensions with an `if` clause or more than one `for`, in code "
             "`torch.jit.script` compiles.",
        why="Scripting fails with `Comprehension ifs are not supported yet` or `Only a single generator is "
            "currently supported`. Plain one-`for` list and dict comprehensions script.",
        example="keep = [b for b in boxes if b.numel() > 0]",
        use_instead="keep: List[torch.Tensor] = []\nfor b in boxes:\n    if b.numel() > 0:\n        keep.append(b)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        xs = [x, x * 2]
        keep = [t for t in xs if t.dim() == 2]  # <-
        return keep[0]
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        offsets = [i * j for i in range(3) for j in range(2)]  # <-
        return x * offsets[1]
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        d = {"a": x, "b": x}
        e = {k: v for k, v in d.items() if k != "b"}  # <-
        return e["a"]
'''),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x):
        xs = [x, x * 2]
        keep: List[torch.Tensor] = []
        for t in xs:
            if t.dim() == 2:
                keep.append(t)
        doubled = [t * 2 for t in keep]
        return doubled[0]
''', check="script-call"),
    )

    def _check(self, node: cst.ListComp | cst.DictComp, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        comp = node.for_in
        if comp.inner_for_in is not None:
            ctx.report(node, self.message.format(form="several `for` clauses"))
        elif comp.ifs:
            ctx.report(node, self.message.format(form="an `if` clause"))

    def visit_ListComp(self, node: cst.ListComp, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_DictComp(self, node: cst.DictComp, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)
