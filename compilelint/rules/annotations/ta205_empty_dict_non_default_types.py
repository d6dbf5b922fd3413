"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import function_types
from compilelint.rules.annotations._containers import container_type
from compilelint.rules.base import Example, Rule, RuleDoc


def _is_empty_dict(value: cst.BaseExpression) -> bool:
    if type(value) is cst.Dict and not value.elements:
        return True
    return type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict" and not value.args


class EmptyDictNonDefaultTypes(Rule):
    code = "TA205"
    name = "empty-dict-non-default-types"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{name} = {{}}` is `Dict[str, Tensor]` but gets {what}; annotate it'
    doc = RuleDoc(
        what=("Flags an empty dict literal (or `dict()`) in compiled code that later receives non-str keys or "
              "non-Tensor values."),
        why=("TorchScript gives an unannotated empty dict the type `Dict[str, Tensor]`; `d[0] = t` or "
             "`d['n'] = 3` then fails with `Arguments for call are not valid`."),
        example="per_level = {}\nfor i, f in enumerate(feats):\n    per_level[i] = f.mean()",
        use_instead="per_level: Dict[int, torch.Tensor] = {}\nfor i, f in enumerate(feats):\n    per_level[i] = f.mean()",
        fix_safety=("Safe: the key and value types are those the assignments in the function store; annotations "
                    "change nothing outside TorchScript."),
    )
    bad = (
        Example('''
import torch
from typing import List
class M(torch.nn.Module):
    def forward(self, feats: List[torch.Tensor]):
        per_level = {}  # <-
        for i, f in enumerate(feats):
            per_level[i] = f.mean()
        return per_level
''', inputs="[([torch.randn(2, 3), torch.randn(4, 3)],)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        stats = dict()  # <-
        stats["count"] = x.shape[0]
        return x * stats["count"]
'''),
    )
    good = (
        Example('''
import torch
from typing import Dict, List
class M(torch.nn.Module):
    def forward(self, feats: List[torch.Tensor]):
        per_level: Dict[int, torch.Tensor] = {}
        named = {}
        for i, f in enumerate(feats):
            per_level[i] = f.mean()
            named["level" + str(i)] = f.sum()
        return per_level, named
''', inputs="[([torch.randn(2, 3), torch.randn(4, 3)],)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.empty: dict[str, cst.Assign] = {}
        self.done: set[str] = set()

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or len(node.targets) != 1:
            return
        target = node.targets[0].target
        if type(target) is cst.Name:
            if _is_empty_dict(node.value):
                self.empty[target.value] = node
            else:
                self.empty.pop(target.value, None)
            return
        if not (type(target) is cst.Subscript and type(target.value) is cst.Name and len(target.slice) == 1
                and type(target.slice[0].slice) is cst.Index):
            return
        name = target.value.value
        assign = self.empty.get(name)
        if assign is None or name in self.done:
            return
        types = function_types(ctx.function)
        key_type = types.scalar_type(target.slice[0].slice.value, ctx.facts)
        value_type = types.element_type(node.value, ctx.facts, ctx.class_node)
        bad_key = key_type is not None and key_type != "str"
        bad_value = value_type is not None and value_type != "torch.Tensor"
        if not (bad_key or bad_value):
            return
        self.done.add(name)
        what = " and ".join(filter(None, [f"{key_type} keys" if bad_key else "", f"{value_type} values" if bad_value else ""]))
        annotation = container_type(ctx.facts.aliases, "Dict", f"{key_type or 'str'}, {value_type or 'torch.Tensor'}")
        fix = None
        if key_type is not None and value_type is not None:
            fixed = cst.AnnAssign(target=assign.targets[0].target,
                                  annotation=cst.Annotation(cst.parse_expression(annotation)), value=assign.value)
            fix = (assign, fixed, f"annotate `{name}: {annotation}`")
        ctx.report(assign, self.message.format(name=name, what=what, type=annotation), fix=fix)
