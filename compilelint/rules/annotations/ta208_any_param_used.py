"""annotations rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.pytypes import never_compiled_init, is_rebound, name_uses, value_use
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.script_types import isinstance_tested


class AnyParamUsed(Rule):
    code = "TA208"
    name = "any-param-used-as-value"
    family = "annotations"
    targets = ("torchscript",)
    severity = "error"
    message = '`{param}: Any` is used through {use}; give its concrete type'
    doc = RuleDoc(
        what="Flags compiled-function parameters annotated `Any` whose value is used (attribute, arithmetic, indexing, call).",
        why=("TorchScript's `Any` is an opaque type: it can be passed along but not used. `meta['scale']` fails "
             "with `'Any' object is not subscriptable`, `meta.scale` with `'Any' object has no attribute`. Worse, "
             "when an `Any` is only compared with None, TorchScript may compile the branch away silently."),
        example="def forward(self, x, meta: Any):\n    return x * meta['scale']",
        use_instead="def forward(self, x, meta: Dict[str, float]):\n    return x * meta['scale']",
    )
    bad = (
        Example('''
import torch
from typing import Any
class M(torch.nn.Module):
    def forward(self, x, meta: Any):  # <-
        return x * meta["scale"]
''', inputs="[(torch.randn(3), {'scale': 2.0})]"),
    )
    good = (
        Example('''
import torch
from typing import Any, Dict
class M(torch.nn.Module):
    def forward(self, x, meta: Dict[str, float], tag: Any):
        return x * meta["scale"]
''', inputs="[(torch.randn(3), {'scale': 2.0}, None)]", check="script-call"),
        Example('''
import torch
from typing import Any
def is_coo(src: Any) -> bool:
    if isinstance(src, torch.Tensor):
        return src.layout == torch.sparse_coo
    return False
class M(torch.nn.Module):
    def forward(self, x):
        return is_coo(x)
''', inputs="[(torch.randn(3),)]", check="script-call"),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        if ctx.function is not node or never_compiled_init(node, ctx.class_node, ctx.facts.aliases):
            return
        for param in [*node.params.posonly_params, *node.params.params, *node.params.kwonly_params]:
            if param.annotation is None or qualify(param.annotation.annotation, ctx.facts.aliases) != "typing.Any":
                continue
            name = param.name.value
            if is_rebound(node, name) or isinstance_tested(node, name):
                continue  # `isinstance(src, Tensor)` refines an `Any` to that type in its branch
            use = next((u for u in (value_use(n, a) for n, a in name_uses(node, name)) if u), None)
            if use is not None:
                ctx.report(param, self.message.format(param=name, use=use))
