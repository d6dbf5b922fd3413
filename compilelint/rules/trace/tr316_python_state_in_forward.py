"""TR316: Python state (int/float/bool attributes, globals) updated inside traced code."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.constructs import Construct


class PythonStateInForward(Rule):
    code = "TR316"
    construct = Construct.PYTHON_STATE_UPDATE
    name = "trace-frozen-python-state"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '{what} is updated in traced code: the trace freezes it'
    doc = RuleDoc(
        what=("Flags assignments in traced code to `self.<attr>` holding a Python number/bool/None or a "
              "tensor (rebinding, not an in-place update), and `global` names rebound inside traced code, when "
              "the traced code also reads that state, and `+=` on a tensor attribute that is not a registered "
              "buffer (the trace keeps that tensor as a constant). Resets to `None` or an empty list/dict are the same "
              "every call and are not flagged. `self.buf += 1` on a registered buffer or "
              "parameter is an in-place update (`aten::add_` in the trace) and is not flagged."),
        why=("The tracer records tensor operations, not Python attribute or global updates: counters, "
             "running flags and cached tensors are read once at trace time and baked in. The traced model "
             "behaves as if the state were frozen at the tracing call, with no warning."),
        example="self.step += 1\nw = min(1.0, self.step / 100)\nreturn x * w",
        use_instead=("self.register_buffer('step', torch.zeros(()))  # in __init__\n"
                     "self.step.add_(1)\nreturn x * (self.step / 100).clamp(max=1.0)"),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0
    def forward(self, x):
        self.step += 1  # <-
        return x * min(1.0, self.step / 100)
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.prev = None
    def forward(self, x):
        prev = x if self.prev is None else self.prev
        self.prev = x.detach()  # <-
        return x - prev
''', inputs="[(torch.ones(3),), (torch.full((3,), 2.0),), (torch.full((3,), 5.0),)]"),
        # torch 2.13: the trace bakes the unregistered tensor in as a prim::Constant and add_s into that
        # constant, which its own check calls had already advanced: eager gives 1, 2, 3; traced 5, 6, 7
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = torch.zeros(())  # a plain attribute, not a registered buffer
    def forward(self, x):
        self.calls += 1  # <-
        return x * self.calls
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.last_attn = None
    def forward(self, x):
        attn = x.softmax(-1)
        self.last_attn = attn.detach()  # kept for visualisation, never read back here
        return attn * x
''', inputs="[(torch.ones(3),), (torch.full((3,), 2.0),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.zeros(()))
        self.scale = 2.0
    def forward(self, x):
        self.step.add_(1)
        return x * self.scale
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
    def forward(self, x):
        self.calls += 1  # a buffer: `+=` on a tensor is an in-place add_, recorded by the trace
        return x * self.calls
''', inputs="[(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]"),
    )

    def __init__(self) -> None:
        self.begin_function(None)

    def begin_function(self, ctx) -> None:  # noqa: ANN001
        self._globals: set[str] = set()
        self._writes: list[tuple[cst.CSTNode, str, str]] = []  # (node, key, what)
        self._reads: set[str] = set()

    def visit_Global(self, node: cst.Global, ctx) -> None:  # noqa: ANN001
        self._globals.update(n.name.value for n in node.names)

    @staticmethod
    def _is_store(node: cst.CSTNode, ctx) -> bool:  # noqa: ANN001
        parent = ctx.parent
        if type(parent) is cst.AssignTarget:
            return True
        return type(parent) is cst.Assign and any(t.target is node for t in parent.targets)

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if type(node.value) is cst.Name and node.value.value == "self" and not self._is_store(node, ctx):
            self._reads.add("self." + node.attr.value)

    def visit_Name(self, node: cst.Name, ctx) -> None:  # noqa: ANN001
        if node.value in self._globals and not self._is_store(node, ctx):
            self._reads.add(node.value)

    def _target(self, target: cst.BaseExpression, ctx, node, aug: bool) -> None:  # noqa: ANN001
        if ctx.function is None or ctx.function.name.value == "__init__":
            return
        if type(target) is cst.Name and target.value in self._globals:
            self._writes.append((node, target.value, f"global `{target.value}`"))
            return
        if not (type(target) is cst.Attribute and type(target.value) is cst.Name
                and target.value.value == "self" and ctx.class_facts is not None):
            return
        attr = target.attr.value
        kind = ctx.class_facts.attrs.get(attr)
        literal = ctx.class_facts.literal_types.get(attr, "")
        if literal in ("int", "float", "bool", "None") or kind is Kind.PY:
            self._writes.append((node, "self." + attr, f"`self.{attr}`"))
        elif kind is Kind.TENSOR:
            if aug and attr in getattr(ctx.class_facts, "registered", ()):
                return  # `self.buf += 1` on a registered buffer is an in-place add_ on module state: traced
            what = ("unregistered tensor `self.{attr}`" if aug
                    else "tensor `self.{attr}` (rebound)")
            self._writes.append((node, "self." + attr, what.format(attr=attr)))

    def visit_Assign(self, node: cst.Assign, ctx) -> None:  # noqa: ANN001
        if _is_reset(node.value):
            return  # `self.results = []`, `self._alpha = None`: the same value every call, nothing carried over
        for t in node.targets:
            self._target(t.target, ctx, node, aug=False)

    def visit_AugAssign(self, node: cst.AugAssign, ctx) -> None:  # noqa: ANN001
        self._target(node.target, ctx, node, aug=True)

    def end_function(self, ctx) -> None:  # noqa: ANN001
        # Only state the traced code also reads changes its outputs (a stored attention map for
        # visualisation is merely stale); `x += 1` reads its target.
        for node, key, what in self._writes:
            if key in self._reads or type(node) is cst.AugAssign:
                ctx.report(node, self.message.format(what=what))


def _is_reset(value: cst.BaseExpression) -> bool:
    """`None` or an empty list, dict or tuple: a per-call reset (a flag set to True/False can still record
    which call came first, so booleans and numbers are not resets)."""
    if type(value) is cst.Name:
        return value.value == "None"
    if type(value) in (cst.List, cst.Tuple):
        return not value.elements
    if type(value) is cst.Dict:
        return not value.elements
    return False
