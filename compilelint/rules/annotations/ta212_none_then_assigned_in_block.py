"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import function_types, is_none
from compilelint.rules.base import Example, Rule, RuleDoc, brief

_BLOCKS = (cst.If, cst.Else, cst.For, cst.While, cst.With, cst.Try, cst.ExceptHandler, cst.Finally)


class NoneThenAssignedInBlock(Rule):
    code = "TA212"
    name = "none-variable-assigned-in-block"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{name} = None` is NoneType, later gets {what}; annotate it'
    doc = RuleDoc(
        what=("Flags a local initialised to `None` without annotation and assigned another value inside a later "
              "`if`/`for`/`while`/`with` block (the running-best / lazily-set pattern)."),
        why=("TorchScript types a variable from its first assignment: NoneType. Assigning a Tensor inside a "
             "branch or loop then fails with `Variable 'best' previously had type NoneType but is now being "
             "assigned to a value of type Tensor`. (A straight-line re-assignment, or `None` on one branch of an "
             "if/else, is fine.)"),
        example="best = None\nfor s in scores:\n    if best is None or s > best:\n        best = s",
        use_instead="best: Optional[torch.Tensor] = None\nfor s in scores:\n    if best is None or bool(s > best):\n        best = s",
        fix_safety=("Safe with `Optional[T]` when the file imports `Optional`; `T | None` needs Python 3.10 and "
                    "is an unsafe fix."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        prev = None  # <-
        for i in range(x.shape[0]):
            row = x[i]
            if prev is not None:
                row = row + prev
            prev = row
        return x
''', inputs="[(torch.randn(3, 2),)]"),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x):
        prev: Optional[torch.Tensor] = None
        for i in range(x.shape[0]):
            row = x[i]
            if prev is not None:
                row = row + prev
            prev = row
        if x.shape[0] > 2:
            extra = None
        elif x.shape[0] > 1:
            extra = x * 2
        else:
            extra = x
        return x
''', inputs="[(torch.randn(3, 2),)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.pending: dict[str, tuple[cst.Assign, list[cst.CSTNode]]] = {}

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
            return
        name = node.targets[0].target.value
        blocks = [a for a in ctx.ancestors if isinstance(a, _BLOCKS + (cst.FunctionDef,))]
        if any(type(b) is cst.FunctionDef and b is not ctx.function for b in blocks):
            return
        if is_none(node.value):
            if name not in self.pending:
                self.pending[name] = (node, blocks)
            return
        pending = self.pending.get(name)
        if pending is None:
            return
        first, first_blocks = pending
        deeper = len(blocks) > len(first_blocks) and all(a is b for a, b in zip(first_blocks, blocks))
        if deeper:
            # `elif`/`else`/`except` of the block holding `= None` is a sibling branch, not a nested block:
            # TorchScript unifies None on one branch with a value on another into Optional.
            step = blocks[len(first_blocks)]
            if type(step) in (cst.Else, cst.ExceptHandler, cst.Finally) or \
                    getattr(first_blocks[-1], "orelse", None) is step:
                deeper = False
        if not deeper:
            self.pending.pop(name)  # re-bound at the same level: TorchScript re-types it there
            return
        self.pending.pop(name)
        typ = function_types(ctx.function).element_type(node.value, ctx.facts)
        optional = next((k for k, v in ctx.facts.aliases.items() if v == "typing.Optional"), None)
        what = f"`{brief(ctx.code_for(node.value), 20)}`"
        if typ is None:
            ctx.report(first, self.message.format(name=brief(name, 24), what=what, type="Optional[<its type>]"))
            return
        if typ == "torch.Tensor" and ctx.facts.aliases.get("torch") != "torch":
            typ = "Tensor"
        annotation = f"{optional}[{typ}]" if optional else f"{typ} | None"  # PEP 604 needs Python 3.10: unsafe
        fixed = cst.AnnAssign(target=first.targets[0].target, annotation=cst.Annotation(cst.parse_expression(annotation)),
                              value=first.value)
        ctx.report(first, self.message.format(name=brief(name, 24), what=what, type=annotation),
                   fix=(first, fixed, f"annotate `{name}: {annotation}`"), unsafe_fix=optional is None)
