"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import never_compiled_init, has_overloads, name_uses, scalar_use
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc


class UnannotatedScalarParam(Rule):
    code = "TA202"
    name = "unannotated-scalar-param"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{param}` is used as {what} but unannotated (typed Tensor)'
    doc = RuleDoc(
        what=("Flags parameters of compiled functions that have neither an annotation nor a default and are used "
              "where only a Python scalar fits: `range(k)`, a slice bound, a size or `dim=` argument, a comparison "
              "with a string."),
        why=("TorchScript types every unannotated parameter as `Tensor`. Either scripting fails at the use "
             "(`range` of a Tensor), or, worse, the model scripts and fails only when called with an int "
             "(`Expected a value of type 'Tensor (inferred)' for argument 'k' but instead found type 'int'`)."),
        example="def forward(self, x, k):\n    return x.topk(k).values",
        use_instead="def forward(self, x, k: int):\n    return x.topk(k).values",
        fix_safety=("Safe: the annotation is the type the flagged use requires, and annotations change nothing "
                    "outside TorchScript. Unsafe where a call in the same file passes a tensor for the parameter "
                    "(callers and body disagree, so the annotation would move the failure to that call)."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k):  # <-
        return x.topk(k).values
''', inputs="[(torch.randn(6), 2)]", check="script-call"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, steps, mode):  # <-
        for _ in range(steps):
            x = x * 0.5
        if mode == "sum":
            return x.sum()
        return x
''', inputs="[(torch.randn(6), 2, 'sum')]", check="script-call"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, feat, n):  # <-
        scores = feat.flatten(1).softmax(-1)
        return scores.topk(k=n, dim=-1).indices
''', inputs="[(torch.randn(2, 3, 4), 2)]", check="script-call"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, k: int):
        return x.topk(k).values
''', inputs="[(torch.randn(6), 2)]", check="script-call"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x, scale):
        if x.dim() == 2:
            x = x.flatten(1)
        return x[: x.shape[0]] * scale
''', inputs="[(torch.randn(6), torch.tensor(2.0))]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or has_overloads(ctx.class_node, node.name.value) or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        params = [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]
        for i, param in enumerate(params):
            if param.annotation is not None or param.default is not None:
                continue
            name = param.name.value
            if i == 0 and name in ("self", "cls"):
                continue
            found = None
            for use, above in name_uses(node, name):
                found = scalar_use(use, above, ctx.facts, ctx.facts.aliases)
                if found:
                    break
            if found is None:
                continue
            type_name, use_text = found
            what = {"int": "an int", "float": "a float", "str": "a str"}.get(type_name, type_name)
            fixed = param.with_changes(annotation=cst.Annotation(cst.Name(type_name)))
            callers_pass_tensor = ctx.passed_kind(name) is Kind.TENSOR
            ctx.report(param, self.message.format(param=name, what=what, use=use_text, type=type_name),
                       fix=(param, fixed, f"annotate `{name}: {type_name}`"), unsafe_fix=callers_pass_tensor)
