from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief


class IdentityKey(Rule):
    code = "RC502"
    call_gate = gate(methods={"setdefault"})
    name = "tensor-identity-key"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = '`{expr}` as a container key: each new tensor recompiles'
    doc = RuleDoc(
        what="Flags `cache[id(x)] = ...` / `cache[x.data_ptr()] = ...` (directly or through a local) in compiled code.",
        why=("`id()` and `data_ptr()` no longer break the graph in torch 2.13, but storing under them makes the "
             "dict's key set part of the guards. Verified on 2.13 with backend=\"eager\": four calls with fresh "
             "tensors gave three recompiles, each a guard failure on the dict the key was stored in "
             "(`triggered by the following guard failure(s): - 0/0: not self.cache  # self.cache[key] = x.sum()`, then "
             "guards on its key set)."),
        example="key = x.data_ptr()\nif key not in self.cache:\n    self.cache[key] = x.sum()",
        use_instead="Cache by a stable key (module name, layer index, shape tuple), or compute the value each call.",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}
    def forward(self, x):
        key = x.data_ptr()
        if key not in self.cache:
            self.cache[key] = x.sum()  # <-
        return x * self.cache[key]
''', inputs="[(torch.randn(3),), (torch.randn(3),), (torch.randn(3),), (torch.randn(3),)]"),
        Example('''
import torch
SEEN = {}
class M(torch.nn.Module):
    def forward(self, x):
        SEEN[id(x)] = x.shape[0]  # <-
        return x * 2
''', inputs="[(torch.randn(3),), (torch.randn(3),), (torch.randn(3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.full((), 2.0))
    def forward(self, x):
        # recompute the per-tensor value (or keep state in a buffer) instead of caching by address
        return x * x.sum() * self.scale
''', inputs="[(torch.randn(3),), (torch.randn(3),), (torch.randn(3),), (torch.randn(3),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        ptr = x.data_ptr()
        return x * 2
''', inputs="[(torch.randn(3),), (torch.randn(3),), (torch.randn(3),)]"),
    )

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._names: set[str] = set()

    def _identity(self, expr: cst.BaseExpression, ctx) -> bool:  # noqa: ANN001
        if type(expr) is cst.Name:
            return expr.value in self._names
        if type(expr) is not cst.Call:
            return False
        func = expr.func
        if type(func) is cst.Name and func.value == "id" and len(expr.args) == 1:
            return ctx.facts.is_tensor(expr.args[0].value)
        if type(func) is cst.Attribute and func.attr.value == "data_ptr" and not expr.args:
            return ctx.facts.is_tensor(func.value)
        return False

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if not hasattr(self, "_names"):
            self._names = set()
        is_id = self._identity(node.value, ctx)
        for t in node.targets:
            target = t.target
            if type(target) is cst.Name:
                if is_id:
                    self._names.add(target.value)
                else:
                    self._names.discard(target.value)
            elif type(target) is cst.Subscript:
                self._check_store(target, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "setdefault" and node.args:
            if not hasattr(self, "_names"):
                self._names = set()
            if self._identity(node.args[0].value, ctx):
                ctx.report(node, self.message.format(expr=brief(ctx.code_for(node.args[0].value), 24)))

    def _check_store(self, target: cst.Subscript, ctx) -> None:  # noqa: ANN001
        for el in target.slice:
            if type(el.slice) is cst.Index and self._identity(el.slice.value, ctx):
                ctx.report(target, self.message.format(expr=brief(ctx.code_for(el.slice.value), 24)))
                return
