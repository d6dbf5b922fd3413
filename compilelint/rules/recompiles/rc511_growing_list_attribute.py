"""RC511: a list attribute that grows on every call of compiled code."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.attributes import self_attrs_kept_bounded

_GROW = {"append", "extend", "insert", "appendleft", "extendleft"}


class GrowingListAttribute(Rule):
    code = "RC511"
    call_gate = gate(methods=_GROW)
    name = "growing-list-attribute"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'list `self.{attr}` grows every call: each call recompiles'
    version_note = ("Verified on 2.13 (backend=\"eager\"): `self.hist.append(x)` with `torch.stack(self.hist)`, over "
                    "12 calls: 8 recompiles (then eager); appending alone, the list unused, recompiles the same; a "
                    "list capped with `pop(0)` or a deque(maxlen=3) recompiles until it is full (3), then holds; a "
                    "tensor ring buffer never recompiles. The rule is silent where the same function shrinks or "
                    "replaces the attribute.")
    doc = RuleDoc(
        what=("Flags `self.<attr>.append/extend/insert(...)` and `self.<attr> += [...]` in compiled code where "
              "`__init__` set `<attr>` to a list (`[]`, `list()`) or a `collections.deque` without `maxlen`, and "
              "the function never shrinks or replaces it (`pop`, `popleft`, `clear`, `remove`, `del`, reassignment)."),
        why=("Temporal fusion and tracking heads keep past frames in a Python list on the module. Dynamo treats a "
             "module's list as part of the program: it guards on its length, so a list that is one longer every "
             "call fails the guard every call. Each call recompiles until `torch._dynamo.config.recompile_limit` "
             "(8), after which Dynamo stops compiling the function and it runs eagerly, silently."),
        example="self.history.append(bev.detach())\nfused = torch.stack(self.history[-4:]).mean(0)",
        use_instead=("# __init__: self.register_buffer(\"history\", torch.zeros(4, C, H, W))\n"
                     "self.history.copy_(torch.cat([self.history[1:], bev.detach()[None]]))\n"
                     "fused = self.history.mean(0)"),
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.history = []

    def forward(self, bev):
        self.history.append(bev.detach())  # <-
        return torch.stack(self.history).mean(0)
''', inputs="[(torch.randn(4),), (torch.randn(4),), (torch.randn(4),)]"),
        Example('''import collections

import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.log = collections.deque()

    def forward(self, x):
        y = x.relu()
        self.log.append(y.detach())  # <-
        return y * 2.0
''', inputs="[(torch.randn(4),), (torch.randn(4),), (torch.randn(4),)]"),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("history", torch.zeros(3, 4))

    def forward(self, bev):
        self.history.copy_(torch.cat([self.history[1:], bev.detach()[None]]))
        return self.history.mean(0)
''', inputs="[(torch.randn(4),), (torch.randn(4),), (torch.randn(4),)]"),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, frames):
        parts = []
        for f in frames.unbind(0):
            parts.append(f.relu())
        return torch.stack(parts).mean(0)
''', inputs="[(torch.randn(3, 4),), (torch.randn(3, 4),), (torch.randn(3, 4),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in _GROW:
            self._check(func.value, node, ctx)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.AddAssign:
            self._check(node.target, node, ctx)

    def _check(self, target: cst.BaseExpression, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        if not (type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self"):
            return
        if ctx.function is None or ctx.function.name.value == "__init__" or ctx.class_facts is None:
            return
        attr = target.attr.value
        if attr in getattr(ctx.class_facts, "unbounded_lists", ()) and attr not in self_attrs_kept_bounded(ctx):
            ctx.report(node, self.message.format(attr=attr))
