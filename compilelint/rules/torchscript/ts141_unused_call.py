"""TS141: calls to `@torch.jit.unused` methods and functions."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule

_UNUSED = {"torch.jit.unused"}


class UnusedCall(SemanticScriptRule):
    code = "TS141"
    name = "unused-called-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is `@torch.jit.unused`: this call raises when scripted'
    doc = RuleDoc(
        what="Flags calls, from code `torch.jit.script` compiles, to methods or functions of the same file "
             "decorated `@torch.jit.unused`.",
        why="TorchScript replaces the body of an `@torch.jit.unused` function with a raise: the module "
            "scripts, then fails when the call runs (`The following operation failed in the TorchScript "
            "interpreter`).",
        example="def forward(self, x):\n    return self.debug_head(x)\n\n@torch.jit.unused\ndef debug_head(self, x): ...",
        use_instead="@torch.jit.ignore\ndef debug_head(self, x): ...",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return self.head(x)  # <-
    @torch.jit.unused
    def head(self, x):
        return x * 2
''', check="script-call"),
        Example('''
import torch
@torch.jit.unused
def head(x):
    return x * 2
class M(torch.nn.Module):
    def forward(self, x):
        return head(x)  # <-
''', check="script-call"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if not torch.jit.is_scripting():
            x = self.debug(x)
        return self.head(x)
    @torch.jit.ignore
    def head(self, x: torch.Tensor) -> torch.Tensor:
        return x * 2
    @torch.jit.unused
    def debug(self, x):
        return x
''', check="script-call"),
    )

    def _unused(self, defs, ctx) -> set[str]:  # noqa: ANN001
        return {d.name.value for d in defs if type(d) is cst.FunctionDef
                and any(ctx.qualify(dec.decorator) in _UNUSED for dec in d.decorators)}

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        if getattr(self, "_module", None) is not ctx.module:
            self._module = ctx.module
            self._functions = self._unused(ctx.module.body, ctx)
            self._classes: dict[int, set[str]] = {}
        cls = ctx.class_node
        if cls is not None and id(cls) not in self._classes:
            self._classes[id(cls)] = self._unused(cls.body.body, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        func = node.func
        if any(type(a) is cst.If and _is_scripting_guard(a.test) for a in ctx.ancestors):
            return
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            cls = ctx.class_node
            if cls is not None and func.attr.value in self._classes.get(id(cls), ()):
                ctx.report(node, self.message.format(name=f"self.{func.attr.value}"))
        elif type(func) is cst.Name and func.value in self._functions and func.value not in ctx.facts.env:
            ctx.report(node, self.message.format(name=func.value))


def _is_scripting_guard(test: cst.BaseExpression) -> bool:
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        test = test.expression
    return type(test) is cst.Call and type(test.func) is cst.Attribute and test.func.attr.value == "is_scripting"
