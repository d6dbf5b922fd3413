"""TS178: a lambda registered as a forward hook of a module TorchScript compiles."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.calls import argument
from compilelint.torchapi.script import SCRIPTED_HOOK_REGISTRATIONS


def _self_or_submodule(expr: cst.BaseExpression) -> bool:
    """`self` or `self.<attr>`: the module being built, or one of its submodules (scripted with it)."""
    if type(expr) is cst.Attribute:
        expr = expr.value
    return type(expr) is cst.Name and expr.value == "self"


class LambdaForwardHook(Rule):
    code = "TS178"
    name = "lambda-forward-hook"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    call_gate = gate(methods=set(SCRIPTED_HOOK_REGISTRATIONS))
    message = "lambda registered as a forward hook; register a named function"
    doc = RuleDoc(
        what=("Flags a `lambda` passed to `register_forward_hook` or `register_forward_pre_hook` of the module "
              "(`self`) or of one of its submodules (`self.<attr>`) in a module class."),
        why=("`torch.jit.script` compiles a module's forward hooks and pre-hooks with its `forward`, from their "
             "source, and cannot take a lambda's: scripting fails with `Expected a single top-level function: "
             "file:line`, at the lambda. The hook is scripted like a method, so a named function needs annotated "
             "inputs and a return annotation (`None`, `Tensor` or `Tuple[Tensor]`). Backward and state-dict hooks "
             "are not scripted."),
        example=("def __init__(self):\n    super().__init__()\n    self.lin = nn.Linear(3, 3)\n"
                 "    self.lin.register_forward_hook(lambda m, i, o: o * 2)"),
        use_instead=("def double(m: nn.Module, i: Tuple[torch.Tensor], o: torch.Tensor) -> torch.Tensor:\n"
                     "    return o * 2\n\n"
                     "def __init__(self):\n    super().__init__()\n    self.lin = nn.Linear(3, 3)\n"
                     "    self.lin.register_forward_hook(double)"),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.register_forward_pre_hook(lambda m, x: None)  # <-
    def forward(self, x):
        return self.lin(x)
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_hook(lambda m, i, o: o * 2)  # <-
    def forward(self, x):
        return self.lin(x)
'''),
    )
    good = (
        Example('''
import torch
from typing import Tuple
def double(m: torch.nn.Module, i: Tuple[torch.Tensor], o: torch.Tensor) -> torch.Tensor:
    return o * 2
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.lin.register_forward_hook(double)
        self.lin.weight.register_hook(lambda g: g * 2)
        self.register_full_backward_hook(lambda m, gi, go: None)
    def forward(self, x):
        return self.lin(x)
''', inputs="[(torch.randn(2, 3),)]", check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if ctx.class_node is None or type(func) is not cst.Attribute \
                or func.attr.value not in SCRIPTED_HOOK_REGISTRATIONS or not _self_or_submodule(func.value):
            return
        hook = argument(node, 0, "hook")
        if type(hook) is cst.Lambda:
            ctx.report(hook, in_class=True)
