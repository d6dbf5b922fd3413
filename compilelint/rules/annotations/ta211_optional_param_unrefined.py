"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.pytypes import never_compiled_init, is_rebound, name_uses, refined_names, value_use
from compilelint.semantic.annotations import optional_annotation
from compilelint.semantic.script_types import compiled_by_script
from compilelint.rules.base import Example, Rule, RuleDoc


class OptionalParamUnrefined(Rule):
    code = "TA211"
    name = "optional-param-unrefined"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = 'Optional `{param}` is used through {use} with no `is None` test'
    doc = RuleDoc(
        what=("Flags uses (arithmetic, attribute, indexing, call) of an `Optional[...]` parameter in a compiled "
              "function that never checks it against None."),
        why=("TorchScript types the parameter `Optional[T]` and refuses `T`'s operations on it until a `None` "
             "check refines it: `x * scale` fails with `Arguments for call are not valid`."),
        example="def forward(self, x, scale: Optional[float] = None):\n    return x * scale",
        use_instead=("def forward(self, x, scale: Optional[float] = None):\n    if scale is not None:\n"
                     "        x = x * scale\n    return x"),
    )
    bad = (
        Example('''
import torch
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, temperature: Optional[float] = None):
        return (x / temperature).softmax(-1)  # <-
''', inputs="[(torch.randn(3), 2.0)]"),
    )
    good = (
        Example('''
import torch
from typing import Optional
def describe(msg: Optional[str]) -> Optional[str]:
    if not torch.jit.is_scripting():
        if callable(msg):
            return msg()
    return msg
class M(torch.nn.Module):
    def forward(self, x):
        describe("x")
        return x
'''),
        Example('''
import torch
import torch.nn.functional as F
from typing import Optional
class M(torch.nn.Module):
    def forward(self, x, temperature: Optional[float] = None, bias: Optional[torch.Tensor] = None):
        if temperature is not None:
            x = x / temperature
        return F.linear(x, torch.eye(3), bias).softmax(-1)
''', inputs="[(torch.randn(3), 2.0)]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        refined = None
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            if param.annotation is None or not optional_annotation(param.annotation.annotation, ctx.facts.aliases):
                continue
            name = param.name.value
            if is_rebound(node, name):
                continue
            if refined is None:
                refined = refined_names(node)
            if name in refined:
                continue
            for use_node, above in name_uses(node, name):
                use = value_use(use_node, above)
                if use is not None and not compiled_by_script(node, use_node):
                    continue  # under `if not torch.jit.is_scripting():`, which TorchScript never compiles
                if use is not None:
                    ctx.report(use_node, self.message.format(param=name, use=use))
                    break

