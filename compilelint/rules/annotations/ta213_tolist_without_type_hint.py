"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


class TolistWithoutTypeHint(Rule):
    code = "TA213"
    call_gate = gate(methods={"tolist"})
    name = "tolist-without-type-hint"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`.tolist()` needs an annotated target: `{example}: List[int]`'
    doc = RuleDoc(
        what=("Flags `tensor.tolist()` in compiled code whose result is not the value of an annotated assignment "
              "(or the `return` of a function with a return annotation)."),
        why=(("The element type and nesting of `tolist()` depend on the tensor's dtype and rank, which TorchScript "
              'does not know statically: `Expected type hint for result of tolist()`. Annotate the local: `values: '
              'List[int] = t.tolist()` (`List[float]`, `List[List[int]]` for 2-D).')),
        example="for label in labels.tolist():\n    names.append(self.classes[label])",
        use_instead="label_ids: List[int] = labels.tolist()\nfor label in label_ids:\n    names.append(self.classes[label])",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        total = 0
        for v in x.argmax(-1).tolist():  # <-
            total += v
        return x * total
''', inputs="[(torch.randn(2, 3),)]"),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, x) -> List[int]:
        ids: List[int] = x.argmax(-1).tolist()
        total = 0
        for v in ids:
            total += v
        return x.argmax(-1).tolist()
''', inputs="[(torch.randn(2, 3),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        func = node.func
        if fn is None or node.args or not (type(func) is cst.Attribute and func.attr.value == "tolist"):
            return
        if ctx.kind(func.value) not in (Kind.TENSOR, Kind.UNKNOWN):
            return
        parent = ctx.parent
        if type(parent) is cst.AnnAssign and parent.value is node:
            return
        if type(parent) is cst.Return and fn.returns is not None:
            return
        target = "values"
        if type(parent) is cst.Assign and len(parent.targets) == 1 and type(parent.targets[0].target) is cst.Name:
            target = parent.targets[0].target.value
        ctx.report(node, self.message.format(example=target, call=ctx.code_for(node)))
