"""TR302: a tensor read into a Python number/list whose value the trace then freezes."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.rules.trace._util import in_condition
from compilelint.semantic.constructs import Construct

_METHODS = {"item": "`.item()`", "tolist": "`.tolist()`"}
_BUILTINS = {"int", "float", "bool", "complex"}


class TensorToPython(Rule):
    code = "TR302"
    call_gate = gate(methods=_METHODS, bare=_BUILTINS)
    construct = Construct.DATA_DEPENDENT_VALUE
    name = "trace-frozen-tensor-conversion"
    family = "trace"
    targets = ("trace",)
    severity = "error"
    message = '{what} reads tensor data: the trace freezes the value'
    doc = RuleDoc(
        what=("Flags `.item()`, `.tolist()` and `int()`/`float()`/`bool()` of a tensor in traced code (not of "
              "module state alone, such as `float(self.scale)`, which is the same for every input)."),
        why=("The tracer only records tensor operations. A Python number read out of a tensor is a plain "
             "constant in the recorded graph: the traced model keeps the example input's value for every input. "
             "torch.jit.trace emits a TracerWarning, but the model runs and returns wrong numbers."),
        example="m = x.mean().item()\nreturn x.clamp(max=m)",
        use_instead="m = x.mean()\nreturn torch.minimum(x, m)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        m = x.mean().item()  # <-
        return x.clamp(max=m)
''', inputs="[(torch.tensor([1., 2., 3.]),), (torch.tensor([5., 0., 1.]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        k = int((x > 0.5).sum())  # <-
        return x.sort(descending=True)[0][:k]
''', inputs="[(torch.tensor([0.9, 0.1, 0.7]),), (torch.tensor([0.1, 0.2, 0.3]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * sum(x.tolist())  # <-
''', inputs="[(torch.tensor([1., 2.]),), (torch.tensor([3., 4.]),)]"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        m = x.mean()
        return torch.minimum(x, m)
''', inputs="[(torch.tensor([1., 2., 3.]),), (torch.tensor([5., 0., 1.]),)]"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        return x * x.sum()
''', inputs="[(torch.tensor([1., 2.]),), (torch.tensor([3., 4.]),)]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if in_condition(ctx):
            return  # TR301/TR305/TR306 report the condition itself
        if any(type(a) is cst.Raise for a in ctx.ancestors):
            return  # formatting an error message: only runs on the failing path
        func = node.func
        if type(func) is cst.Attribute and func.attr.value in _METHODS and not node.args:
            if ctx.facts.reads_only_module_state(func.value):
                return  # `self.scale.item()`: model state, the same for every input
            if ctx.facts.is_tensor(func.value):
                ctx.report(node, self.message.format(what=_METHODS[func.attr.value]))
        elif type(func) is cst.Name and func.value in _BUILTINS and len(node.args) == 1:
            arg = node.args[0].value
            if ctx.facts.kind(arg) is Kind.TENSOR and not ctx.facts.reads_only_module_state(arg):
                ctx.report(node, self.message.format(what=f"`{func.value}()` of a tensor"))
