"""RC519: an argument that takes a tensor or a Python number, branched on by its type."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.frames import tensor_or_number_argument
from compilelint.torchapi.guards import TYPE_TESTS

_INPUTS = "[(torch.randn(4), t) for t in (torch.tensor(3), 3, torch.tensor(5), 5, 7)]"
_TENSOR_NAMES = {"torch.Tensor", "int", "float"}


class TensorOrNumberArgument(Rule):
    code = "RC519"
    name = "tensor-or-number-argument"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    call_gate = gate(names=TYPE_TESTS, bare={"isinstance"})
    message = "`{param}` is a tensor or a number: recompiles once per type passed"
    version_note = ("Verified on 2.13 (backend=\"eager\", five calls alternating a 0-d tensor and ints): the entry "
                    "recompiles once when the first int arrives (`expected type of 't' to be a tensor type`) and "
                    "the ints then share one dynamic graph; diffusers' UNet2DModel, UNet1DModel and "
                    "PriorTransformer recompiled the same way on `timestep` (`___check_type_id(timestep, ...)`).")
    doc = RuleDoc(
        what=("Flags the branch on the type (`torch.is_tensor(t)`, `isinstance(t, torch.Tensor)`) of a compiled "
              "entry's argument annotated as a tensor or a number (`timestep: torch.Tensor | float | int`), or of "
              "what the entry hands a helper of it."),
        why=("Dynamo guards every input's type. An argument that callers pass as a tensor on one call and as a "
             "Python number on another fails that guard, and each type compiles a graph of its own; the number "
             "is then guarded on its value until automatic dynamic makes it a symbol (once more). Which type "
             "arrives is the callers' choice, so the code that accepts both is where the recompile comes from."),
        example=("def forward(self, x, timestep: torch.Tensor | int):\n    if not torch.is_tensor(timestep):\n"
                 "        timestep = torch.tensor([timestep])"),
        use_instead=("def forward(self, x, timestep: torch.Tensor):  # callers pass a tensor, e.g. "
                     "torch.as_tensor(t)"),
    )
    bad = (
        Example('''from typing import Union

import torch


class M(torch.nn.Module):
    def forward(self, x, t: Union[torch.Tensor, float, int]):
        ts = t
        if not torch.is_tensor(ts):  # <-
            ts = torch.tensor([ts], dtype=torch.long)
        return x * ts
''', inputs=_INPUTS),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, t: torch.Tensor):
        return x * t.reshape(1)
''', inputs="[(torch.randn(4), torch.tensor(t)) for t in (3, 3, 5, 5, 7)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not node.args or ctx.function is None:
            return
        name = ctx.qualify(node.func)
        if name in TYPE_TESTS:
            pass
        elif name == "isinstance" and len(node.args) == 2 and any(
                ctx.qualify(e) in _TENSOR_NAMES for e in _type_names(node.args[1].value)):
            pass
        else:
            return
        param = tensor_or_number_argument(node.args[0].value, ctx)
        done = ctx.__dict__.setdefault("_tensor_or_number_reported", set())
        if param is None or id(ctx.function) in done:
            return
        done.add(id(ctx.function))
        # the whole `if`/`elif` chain: the type guard is installed where the branches first read the value
        above = [*ctx.ancestors, node]
        branch = next((a for i, a in enumerate(above) if type(a) is cst.If and a.test in above[i + 1:]), None)
        ctx.report(branch if branch is not None else node, self.message.format(param=param))


def _type_names(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    return [e.value for e in expr.elements] if type(expr) is cst.Tuple else [expr]
