from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc

_TYPE_OF_LITERAL = {cst.Integer: "int", cst.Float: "float", cst.SimpleString: "str"}


def _literal_type(default: cst.BaseExpression) -> str | None:
    if type(default) is cst.UnaryOperation and type(default.operator) is cst.Minus:
        default = default.expression
    if type(default) is cst.Name and default.value in ("True", "False"):
        return "bool"
    for node_type, name in _TYPE_OF_LITERAL.items():
        if isinstance(default, node_type):
            return name
    return None


class UnannotatedLiteralDefault(Rule):
    code = "TA201"
    name = "unannotated-non-tensor-param"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{param}` has a {type} default but no annotation; annotate `{type}`'
    doc = RuleDoc(
        what="Flags parameters of compiled functions that have a literal default (int, float, bool, str) and no annotation.",
        why=("TorchScript types every unannotated parameter as `Tensor`, whatever its default; scripting then "
             "fails because the default is not a Tensor."),
        example="def forward(self, x, k=3):\n    return x.topk(k).values",
        use_instead="def forward(self, x, k: int = 3):\n    return x.topk(k).values",
        fix_safety=("Safe: the annotation is the type of the default, and annotations change nothing outside "
                    "TorchScript."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k=2):  # <-
        return x.topk(k).values
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k: int = 2):
        return x.topk(k).values
'''),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node:  # nested defs are TS rules' business
            return
        for param in [*node.params.params, *node.params.kwonly_params, *node.params.posonly_params]:
            if param.annotation is not None or param.default is None:
                continue
            type_name = _literal_type(param.default)
            if type_name is None:
                continue
            fixed = param.with_changes(annotation=cst.Annotation(cst.Name(type_name)),
                                       equal=cst.AssignEqual())
            ctx.report(param, self.message.format(param=param.name.value, type=type_name),
                       fix=(param, fixed, f"annotate `{param.name.value}: {type_name}`"))
