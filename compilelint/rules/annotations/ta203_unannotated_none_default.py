"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import (has_overloads, is_none, name_uses, never_compiled_init, scalar_use,
                                          tensor_only_use)
from compilelint.rules.base import Example, Rule, RuleDoc


class UnannotatedNoneDefault(Rule):
    code = "TA203"
    name = "unannotated-none-default"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{param}=None` unannotated is typed Tensor; annotate `{type}`'
    doc = RuleDoc(
        what="Flags parameters of compiled functions with a `None` default and no annotation.",
        why=("TorchScript types an unannotated parameter as `Tensor` even when its default is `None`. The module "
             "scripts, then the first call that leaves the argument out fails inside the TorchScript interpreter, "
             "even when the body checks `if mask is None`."),
        example="def forward(self, x, mask=None):\n    if mask is not None:\n        x = x * mask\n    return x",
        use_instead=("def forward(self, x, mask: Optional[torch.Tensor] = None):\n    if mask is not None:\n"
                     "        x = x * mask\n    return x"),
        fix_safety=("Safe where the body shows the type: a use only a tensor has (`mask.shape`, `mask.bool()`) "
                    "gives `Optional[torch.Tensor]`, a use only an int, float or str has gives that type. "
                    "Otherwise `Optional[torch.Tensor]` is a guess (the parameter may hold a `torch.Generator`, a "
                    "process group, a config) and the fix is unsafe; so is `T | None` (Python 3.10+)."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, mask=None):  # <-
        if mask is not None:
            x = x.masked_fill(mask, 0.0)
        return x.softmax(-1)
''', inputs="[(torch.randn(2, 4),)]", check="script-call"),
    )
    good = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, mask: Optional[torch.Tensor] = None):
        if mask is not None:
            x = x.masked_fill(mask, 0.0)
        return x.softmax(-1)
''', inputs="[(torch.randn(2, 4),)]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or has_overloads(ctx.class_node, node.name.value) or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        optional = next((local for local, full in ctx.facts.aliases.items() if full == "typing.Optional"), None)
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            if param.annotation is not None or not is_none(param.default):
                continue
            name = param.name.value
            inner, shown = "torch.Tensor", False
            for use, above in name_uses(node, name):
                found = scalar_use(use, above, ctx.facts, ctx.facts.aliases)
                if found:
                    inner, shown = found[0], True
                    break
                shown = shown or tensor_only_use(use, above)
            if inner == "torch.Tensor" and ctx.facts.aliases.get("torch") != "torch":
                inner = "Tensor"
            # `Optional[T]` when the file imports Optional, else PEP 604 `T | None` (TorchScript accepts both;
            # the latter needs Python 3.10, hence an unsafe fix).
            text = f"{optional}[{inner}]" if optional else f"{inner} | None"
            inner_node = (cst.Attribute(cst.Name("torch"), cst.Name("Tensor")) if inner == "torch.Tensor"
                          else cst.Name(inner))
            if optional:
                annotation = cst.Subscript(cst.Name(optional), [cst.SubscriptElement(cst.Index(inner_node))])
            else:
                annotation = cst.BinaryOperation(inner_node, cst.BitOr(), cst.Name("None"))
            fixed = param.with_changes(annotation=cst.Annotation(annotation), equal=cst.AssignEqual())
            ctx.report(param, self.message.format(param=name, type=text),
                       fix=(param, fixed, f"annotate `{name}: {text} = None`"), unsafe_fix=optional is None or not shown)
