"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import function_types, is_none
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.paths import arms_meet, script_constant_arms, script_constants


class InconsistentReturnTypes(Rule):
    code = "TA206"
    name = "inconsistent-return-types"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`return` gives {this}, an earlier one {first}; use one type'
    doc = RuleDoc(
        what=("Flags a compiled function whose `return` statements give values of different types on different "
              "paths: a Tensor here and a tuple there, tuples of different lengths, an int and a float."),
        why=("TorchScript infers one return type from the first `return` and rejects the others (`Previous return "
             "statement returned a value of type Tensor but this return statement returns a value of type "
             "Tuple[Tensor, Tensor]`). Returning `None` on one path is fine: it is unified to Optional. Returns on the two sides of a "
             "branch on a `torch.jit.Final` attribute never meet: TorchScript keeps one side per instance."),
        example="if self.training:\n    return logits, aux\nreturn logits",
        use_instead="if self.training:\n    return logits, aux\nreturn logits, torch.zeros_like(aux)  # or always return the pair",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        logits = x * 2
        if x.shape[0] > 1:
            return logits, logits.softmax(-1)
        return logits  # <-
'''),
        Example('''
import torch
def iou_threshold(n: int):
    if n > 100:
        return 0.7
    return 0  # <-
class M(torch.nn.Module):
    def forward(self, x):
        return x * iou_threshold(x.shape[0])
'''),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    return_features: torch.jit.Final[bool]  # a constant: TorchScript keeps one side of the branch

    def __init__(self):
        super().__init__()
        self.return_features = False
        self.proj = torch.nn.Linear(3, 3)

    def forward(self, x):
        y = self.proj(x)
        if self.return_features:
            return y, x
        return y
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        logits = x * 2
        if x.shape[0] > 1:
            return logits, logits.softmax(-1)
        if x.shape[1] > 5:
            return None
        return logits, logits
'''),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self.seen: list[tuple[str, tuple]] = []  # (category, script-constant arms) of each earlier return
        self.reported = False
        self.constants = script_constants(ctx.class_node, ctx.aliases)

    def _category(self, value: cst.BaseExpression | None, ctx) -> str | None:  # noqa: ANN001
        if value is None or is_none(value):
            return None
        if type(value) is cst.Tuple:
            return f"a {len(value.elements)}-tuple" if not any(type(e) is cst.StarredElement for e in value.elements) else None
        if type(value) is cst.List:
            return "a list"
        if type(value) is cst.Dict:
            return "a dict"
        scalar = function_types(ctx.function).scalar_type(value, ctx.facts)
        if scalar is not None:
            return f"{'an' if scalar == 'int' else 'a'} {scalar}"
        if type(value) is cst.Call:
            func = value.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
                return None  # a submodule or method: its return type is not certain here
            if type(func) is cst.Name and ctx.facts.kind(func) is Kind.MODULE:
                return None
        if ctx.facts.kind(value) is Kind.TENSOR:
            return "a Tensor"
        return None

    def visit_Return(self, node: cst.Return, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or fn.returns is not None or self.reported:
            return
        if any(type(a) in (cst.FunctionDef, cst.Lambda) and a is not fn for a in ctx.ancestors):
            return
        category = self._category(node.value, ctx)
        if category is None:
            return
        # returns on different sides of `if self.<Final attr>:` never meet: TorchScript keeps one side per instance
        arms = script_constant_arms(ctx.ancestors, node, self.constants)
        earlier = next((c for c, a in self.seen if arms_meet(a, arms)), None)
        self.seen.append((category, arms))
        if earlier is not None and category != earlier:
            self.reported = True
            ctx.report(node, self.message.format(this=category, first=earlier, func=fn.name.value))
