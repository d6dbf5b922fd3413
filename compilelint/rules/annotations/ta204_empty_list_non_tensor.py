"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.pytypes import function_types
from compilelint.rules.annotations._containers import container_type
from compilelint.rules.base import Example, Rule, RuleDoc, brief


def _is_empty_list(value: cst.BaseExpression) -> bool:
    if type(value) is cst.List and not value.elements:
        return True
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "list" and not value.args


class EmptyListNonTensor(Rule):
    code = "TA204"
    call_gate = gate(methods={"append", "insert"})
    name = "empty-list-non-tensor-elements"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{name} = []` is `List[Tensor]`, gets {what}; annotate it'
    doc = RuleDoc(
        what="Flags an empty list literal (or `list()`) in compiled code that later receives non-Tensor elements.",
        why=("TorchScript gives an unannotated empty list the type `List[Tensor]`; appending an int, float, str or "
             "tuple then fails with `Type variable 't' previously matched to type Tensor is matched to type int`."),
        example="keep = []\nfor i in range(n):\n    keep.append(i)",
        use_instead="keep: List[int] = []\nfor i in range(n):\n    keep.append(i)",
        fix_safety=("Safe: the element type is the one the appends in the function put into the list; annotations "
                    "change nothing outside TorchScript."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, scores):
        keep = []  # <-
        for i in range(scores.shape[0]):
            if bool(scores[i] > 0.5):
                keep.append(i)
        return scores[keep]
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        spans = list()  # <-
        spans.append((0, x.shape[-1]))
        return x[..., spans[0][0]:spans[0][1]]
'''),
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vocab = {"<unk>": 0, "a": 1, "b": 2}
    def forward(self, chars: List[str]):
        ids = []  # <-
        for c in chars:
            ids.append(self.vocab.get(c, 0))
        return torch.tensor(ids)
''', inputs="[(['a', 'b', 'z'],)]"),
    )
    good = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, scores):
        keep: List[int] = []
        parts = []
        for i in range(scores.shape[0]):
            if bool(scores[i] > 0.5):
                keep.append(i)
            parts.append(scores[i] * 2)
        return scores[keep], torch.stack(parts)
'''),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.empty: dict[str, cst.Assign] = {}
        self.done: set[str] = set()

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name:
            return
        name = node.targets[0].target.value
        if _is_empty_list(node.value):
            self.empty[name] = node
        else:
            self.empty.pop(name, None)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        func = node.func
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name and func.attr.value in ("append", "insert")):
            return
        name = func.value.value
        assign = self.empty.get(name)
        if assign is None or name in self.done or ctx.function is None:
            return
        args = [a for a in node.args if a.keyword is None]
        value = args[-1].value if args and len(args) == (1 if func.attr.value == "append" else 2) else None
        if value is None:
            return
        typ = function_types(ctx.function).element_type(value, ctx.facts, ctx.class_node)
        if typ is None or typ == "torch.Tensor":
            return
        self.done.add(name)
        annotation = container_type(ctx.facts.aliases, "List", typ)
        fixed = cst.AnnAssign(target=assign.targets[0].target, annotation=cst.Annotation(cst.parse_expression(annotation)),
                              value=assign.value)
        what = brief(typ, 32)
        ctx.report(assign, self.message.format(name=brief(name, 24), what=what, type=annotation),
                   fix=(assign, fixed, f"annotate `{name}: {annotation}`"))
