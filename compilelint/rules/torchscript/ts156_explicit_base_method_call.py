"""torchscript rules: one rule per file."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class ExplicitBaseMethodCall(Rule):
    code = "TS156"
    name = "explicit-base-class-method-call"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{call}` calls a base method through the class'
    doc = RuleDoc(
        what="Flags `Base.method(self, ...)` calls in compiled code, where `Base` is a base class of the current class.",
        why=("TorchScript compiles methods of the scripted instance only; a class object is a Python value: "
             "`attribute lookup is not defined on python value of type 'type'`. Giving the base's logic its own "
             "method name makes it reachable as `self.<name>` (overridden names are not)."),
        example="class Head(BaseHead):\n    def forward(self, x):\n        return BaseHead.forward(self, x) * 2",
        use_instead=("class BaseHead(nn.Module):\n    def forward(self, x):\n        return self.base_forward(x)\n"
                     "    def base_forward(self, x): ...\nclass Head(BaseHead):\n    def forward(self, x):\n"
                     "        return self.base_forward(x) * 2"),
    )
    bad = (
        Example('''
import torch
class BaseHead(torch.nn.Module):
    def forward(self, x):
        return x.relu()
class M(BaseHead):
    def forward(self, x):
        return BaseHead.forward(self, x) * 2  # <-
'''),
    )
    good = (
        Example('''
import torch
class BaseHead(torch.nn.Module):
    def forward(self, x):
        return self.base_forward(x)
    def base_forward(self, x):
        return x.relu()
class M(BaseHead):
    def forward(self, x):
        return self.base_forward(x) * 2
'''),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        cls = ctx.class_node
        if ctx.function is None or cls is None:
            return
        func = node.func
        if not (type(func) is cst.Attribute and node.args and type(node.args[0].value) is cst.Name
                and node.args[0].value.value == "self"):
            return
        base_codes = {ctx.code_for(b.value) for b in cls.bases if b.keyword is None}
        owner = ctx.code_for(func.value)
        if owner in base_codes:
            ctx.report(node, self.message.format(call=ctx.code_for(node),
                                                 helper=f"{owner.rsplit('.', 1)[-1].lower()}_{func.attr.value}"))
