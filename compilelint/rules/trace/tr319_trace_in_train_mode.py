"""TR319: `torch.jit.trace(model, ...)` on a module never put in eval mode."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.nodes import child_nodes

from compilelint.rules.base import Example, Rule, RuleDoc, brief

_TRACE = {"torch.jit.trace", "torch.jit.trace_module"}
_EVAL_CALLS = {"eval", "train", "requires_grad_"}


def _statements(body) -> list:  # noqa: ANN001
    return list(body.body) if hasattr(body, "body") else []


def _mentions_eval(tree: cst.CSTNode, name: str) -> bool:
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in ("eval", "train"):
            owner = node.func.value
            if type(owner) is cst.Name and owner.value == name:
                if node.func.attr.value == "eval":
                    return True
                if node.args and type(node.args[0].value) is cst.Name and node.args[0].value.value == "False":
                    return True
        stack.extend(child_nodes(node))
    return False


def _constructed_here(tree: cst.CSTNode, name: str) -> cst.Call | None:
    """`name = SomeClass(...)` without `.eval()` in the same body."""
    for node in _walk(tree):
        if type(node) is cst.Assign and type(node.value) is cst.Call:
            for t in node.targets:
                if type(t.target) is cst.Name and t.target.value == name:
                    func = node.value.func
                    last = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
                    if isinstance(last, str) and last[:1].isupper():
                        return node.value
    return None


def _walk(tree: cst.CSTNode):
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child_nodes(node))


class TraceInTrainMode(Rule):
    code = "TR319"
    call_gate = gate(names=_TRACE)
    body_gate = frozenset(name.rpartition(".")[2] for name in _TRACE)
    name = "trace-module-in-train-mode"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    applies_to = "anywhere"
    message = '`torch.jit.trace` of `{name}` in training mode; call `.eval()`'
    doc = RuleDoc(
        what=("Flags `torch.jit.trace(model, ...)` where `model` is constructed in the same function (or module) "
              "and neither `model.eval()` nor `model.train(False)` is called there."),
        why=("The mode is recorded into the trace: a train-mode trace keeps dropout random and batch norm using "
             "(and updating) batch statistics, so the deployed model's outputs differ from evaluation."),
        example="model = Net()\ntraced = torch.jit.trace(model, x)",
        use_instead="model = Net().eval()\ntraced = torch.jit.trace(model, x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.drop = torch.nn.Dropout(0.5)
    def forward(self, x):
        return self.drop(self.fc(x))
def export(x):
    model = M()
    return torch.jit.trace(model, (x,))  # <-
''', inputs="[(torch.ones(4, 8),), (torch.ones(4, 8),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 8)
        self.drop = torch.nn.Dropout(0.5)
    def forward(self, x):
        return self.drop(self.fc(x))
def export(x):
    model = M()
    model.eval()
    return torch.jit.trace(model, (x,))
''', inputs="[(torch.ones(4, 8),), (torch.ones(4, 8),)]", check="trace-eval"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if (ctx.qualify(node.func) or "") not in _TRACE or not node.args:
            return
        target = node.args[0].value
        scope = ctx.function if ctx.function is not None else ctx._analyzer.module  # noqa: SLF001
        if type(target) is cst.Call:
            func = target.func
            last = func.attr.value if type(func) is cst.Attribute else getattr(func, "value", "")
            if isinstance(last, str) and last[:1].isupper():
                ctx.report(node, self.message.format(name=brief(ctx.code_for(target), 24)))
            return
        if type(target) is cst.Name and _constructed_here(scope, target.value) is not None:
            if not _mentions_eval(scope, target.value):
                ctx.report(node, self.message.format(name=target.value))
