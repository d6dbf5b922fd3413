"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import function_types, is_none
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


class InconsistentReturnTypes(Rule):
    code = "TA206"
    name = "inconsistent-return-types"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = ("this `return` gives {this}, but an earlier `return` in `{func}` gives {first}: TorchScript needs "
               "one return type on every path; return the same type everywhere (e.g. a tuple of the same arity, "
               "a float literal `0.0`)")
    doc = RuleDoc(
        what=("Flags a compiled function whose `return` statements give values of different types on different "
              "paths: a Tensor here and a tuple there, tuples of different lengths, an int and a float."),
        why=("TorchScript infers one return type from the first `return` and rejects the others (`Previous return "
             "statement returned a value of type Tensor but this return statement returns a value of type "
             "Tuple[Tensor, Tensor]`). Returning `None` on one path is fine: it is unified to Optional."),
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
        self.first: tuple[str, cst.Return] | None = None
        self.reported = False

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
        if self.first is None:
            self.first = (category, node)
        elif category != self.first[0]:
            self.reported = True
            ctx.report(node, self.message.format(this=category, first=self.first[0], func=fn.name.value))
