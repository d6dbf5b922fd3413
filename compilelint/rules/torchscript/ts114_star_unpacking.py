"""TS114: star-unpacking TorchScript cannot size statically."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule
from compilelint.torchapi.script import TENSOR_LIST_METHODS


class StarUnpacking(SemanticScriptRule):
    code = "TS114"
    name = "star-unpacking-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = 'star-unpacking `{form}` is not scriptable; index explicitly'
    doc = RuleDoc(
        what="Flags starred assignment targets (`a, *rest = xs`), starred items in list/tuple displays "
             "(`[*a, 3]`, `(*x.shape[:-1], 3)`), and `*` call arguments that are lists or tensor shapes "
             "(`x.view(*x.shape)`) in code `torch.jit.script` compiles.",
        why="Scripting fails with `cannot statically infer the expected size of a list in this context`. "
            "Star-unpacking a tuple (`f(*pair)`, `(2, *self.kernel)`, `a, *rest = (x, y, z)`) scripts and is "
            "not flagged; neither is a value whose type is not known to be a list.",
        example="b, *rest = x.shape\ny = x.view(*x.shape[:-1], 2, -1)",
        use_instead="b = x.shape[0]\ny = x.view(x.shape[:-1] + [2, -1])",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        a, *rest = [x, x, x]  # <-
        return a
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x.view(*x.shape)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        shape = (*x.shape[:-1], 3)  # <-
        return x.view(shape)
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        dims = [1, 0]
        return x.permute(*dims)  # <-
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        a, *rest = x.unbind(0)  # <-
        return a
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        first, *others = torch.split(x, 1)  # <-
        return first
'''),
    )
    good = (
        Example('''
import torch
def add(a: torch.Tensor, b: torch.Tensor):
    return a + b
class M(torch.nn.Module):
    def forward(self, x):
        a = [x, x, x][0]
        pair = (x, x)
        y = add(*pair)
        t = (3, 1)
        b, *rest = (x, x, x)
        if not torch.jit.is_scripting():
            y = y.view(*x.shape)
        return y.view(x.shape[:-1] + [3]).view([-1, *t])
''', check="script-call"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._lists: set[str] = set()  # local names last bound to a list display / comprehension

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        lists = getattr(self, "_lists", set())
        for target in node.targets:
            if type(target.target) is cst.Name:
                if type(node.value) in (cst.List, cst.ListComp):
                    lists.add(target.target.value)
                else:
                    lists.discard(target.target.value)
        for target in node.targets:
            t = target.target
            if type(t) in (cst.Tuple, cst.List) and any(type(e) is cst.StarredElement for e in t.elements) \
                    and self._is_list(node.value, ctx):
                ctx.report(t, self.message.format(form="a, *rest = ..."))

    def _display(self, node: cst.Tuple | cst.List, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or not any(type(e) is cst.StarredElement and self._is_list(e.value, ctx)
                                           for e in node.elements):
            return
        parent = ctx.parent
        if type(parent) in (cst.AssignTarget, cst.For, cst.CompFor) or type(parent) is cst.Del:
            return  # targets are visit_Assign's (a starred `for` target scripts)
        ctx.report(node, self.message.format(form="[*a, b]"))

    def visit_Tuple(self, node: cst.Tuple, ctx) -> None:  # noqa: ANN001
        self._display(node, ctx)

    def visit_List(self, node: cst.List, ctx) -> None:  # noqa: ANN001
        self._display(node, ctx)

    def visit_Arg(self, node: cst.Arg, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or node.star != "*":
            return
        if self._is_list(node.value, ctx):
            ctx.report(node, self.message.format(form="f(*xs)"))

    def _is_list(self, value: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        """A list in TorchScript: a list display/comprehension (or a local bound to one), a shape
        (`List[int]`). Tuples unpack fine (their length is static), so unknown values are not flagged."""
        if type(value) is cst.Name and value.value in getattr(self, "_lists", ()):
            return True
        if type(value) is cst.Call and (
                (type(value.func) is cst.Attribute and value.func.attr.value in TENSOR_LIST_METHODS
                 and ctx.facts.is_tensor(value.func.value))
                or ctx.qualify(value.func) in {f"torch.{m}" for m in TENSOR_LIST_METHODS}):
            return True  # `x.unbind(0)`, `torch.split(x, 1)`: a List[Tensor] in TorchScript
        return type(value) in (cst.List, cst.ListComp) or ctx.facts.kind(value) is Kind.SHAPE
