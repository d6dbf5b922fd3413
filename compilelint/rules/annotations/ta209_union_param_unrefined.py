"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import never_compiled_init, is_rebound, is_none, name_uses, refined_names, value_use
from compilelint.rules.base import Example, Rule, RuleDoc

_CONTAINERS = {"List", "Dict", "Tuple", "list", "dict", "tuple", "Tensor"}


def union_members(annotation: cst.BaseExpression, aliases: dict[str, str]) -> list[cst.BaseExpression] | None:
    if type(annotation) is cst.Subscript and (qualify(annotation.value, aliases) or "").rsplit(".", 1)[-1] == "Union":
        return [e.slice.value for e in annotation.slice if type(e.slice) is cst.Index]
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        return [*(union_members(annotation.left, aliases) or [annotation.left]),
                *(union_members(annotation.right, aliases) or [annotation.right])]
    return None


def _member_name(member: cst.BaseExpression, aliases: dict[str, str]) -> str:
    base = member.value if type(member) is cst.Subscript else member
    return (qualify(base, aliases) or "").rsplit(".", 1)[-1]


class UnionParamUnrefined(Rule):
    code = "TA209"
    name = "union-param-unrefined"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = 'Union `{param}` is used through {use} without `isinstance`'
    doc = RuleDoc(
        what=("Flags compiled-function parameters typed `Union[...]` with a Tensor or container member, used as a "
              "value with no `isinstance` check on them in the function."),
        why=("TorchScript supports Union types only through refinement: `x + 1` on `Union[Tensor, List[Tensor]]` "
             "fails with `Arguments for call are not valid`. `Union[int, float]` is unified to a number and works, "
             "so it is not flagged."),
        example="def forward(self, x: Union[torch.Tensor, List[torch.Tensor]]):\n    return x + 1",
        use_instead=("def forward(self, x: Union[torch.Tensor, List[torch.Tensor]]):\n    if isinstance(x, torch.Tensor):\n"
                     "        return x + 1\n    return torch.stack(x) + 1"),
    )
    bad = (
        Example('''
import torch
from typing import List, Union
class M(torch.nn.Module):
    def forward(self, x: Union[torch.Tensor, List[torch.Tensor]]):  # <-
        return x + 1
'''),
        Example('''
import torch
from typing import Union
class M(torch.nn.Module):
    def forward(self, x, scale: Union[torch.Tensor, float]):  # <-
        return x * scale
''', inputs="[(torch.randn(3), 2.0)]"),
    )
    good = (
        Example('''
import torch
from typing import List, Union
class M(torch.nn.Module):
    def forward(self, x: Union[torch.Tensor, List[torch.Tensor]], k: Union[int, float]):
        if isinstance(x, torch.Tensor):
            return x + k
        return torch.stack(x) + k
''', inputs="[(torch.randn(3), 2)]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        aliases = ctx.facts.aliases
        refined = None
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            if param.annotation is None:
                continue
            members = union_members(param.annotation.annotation, aliases)
            if not members:
                continue
            concrete = [m for m in members if not is_none(m)]
            if len(concrete) < 2 or not any(_member_name(m, aliases) in _CONTAINERS for m in concrete):
                continue
            name = param.name.value
            if is_rebound(node, name):
                continue
            if refined is None:
                refined = refined_names(node)
            if name in refined:
                continue
            use = next((u for u in (value_use(n, a) for n, a in name_uses(node, name)) if u), None)
            if use is not None:
                text = ", ".join(ctx.code_for(m) for m in concrete)
                ctx.report(param, self.message.format(param=name, members=text, use=use))
