"""TS122: direct recursion."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class Recursion(SemanticScriptRule):
    code = "TS122"
    name = "recursion-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'recursive call of `{name}` is not scriptable; use a loop'
    doc = RuleDoc(
        what="Flags a function or method that calls itself (`f(...)` inside `def f`, `self.m(...)` inside "
             "`def m`) in code `torch.jit.script` compiles.",
        why="Scripting fails with `function 'f' is called recursively. Recursive calls are not supported`.",
        example="def down(self, x, n: int):\n    if n == 0:\n        return x\n    return self.down(x * 2, n - 1)",
        use_instead="def down(self, x, n: int):\n    for _ in range(n):\n        x = x * 2\n    return x",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return self.down(x, 2)
    def down(self, x, n: int):
        if n == 0:
            return x
        return self.down(x * 2, n - 1)  # <-
'''),
        Example('''
import torch
def fact(n: int) -> int:
    if n <= 1:
        return 1
    return n * fact(n - 1)  # <-
class M(torch.nn.Module):
    def forward(self, x):
        return x * fact(3)
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return self.down(x, 2)
    def down(self, x, n: int):
        for _ in range(n):
            x = x * 2
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or any(type(a) is cst.FunctionDef for a in ctx.ancestors if a is not fn):
            return  # nested functions are TS109's
        name = fn.name.value
        func = node.func
        if ctx.class_node is not None:
            if (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
                    and func.attr.value == name):
                ctx.report(node, self.message.format(name=f"self.{name}"))
        elif type(func) is cst.Name and func.value == name and name not in ctx.facts.env:
            ctx.report(node, self.message.format(name=name))
