"""GB415 deepcopy-tensor-graph-break: Flags `copy.deepcopy(...)` of a tensor, a list of tensors, a module or `self`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, called_function


class DeepcopyTensorGraphBreak(CallBreakRule):
    code = 'GB415'
    name = 'deepcopy-tensor-graph-break'
    call_gate = gate(names={"copy.deepcopy"})
    loop_fix = "use .clone()"
    gb_id = 'GB4198'
    older_gb_ids = {"2.11": "GB0179"}
    version_note = ('torch 2.11 breaks the graph on the same line with GB0179 (copy.deepcopy()).')
    severity = "warning"
    message = '`copy.deepcopy` breaks the graph; use `.clone()` for tensors'
    has_fix = True
    doc = RuleDoc(
        what='Flags `copy.deepcopy(...)` of a tensor, a list of tensors, a module or `self` in compiled code.',
        why='Dynamo refuses to deepcopy tensors (GB4198) and splits the graph. `x.clone()` is traced.',
        example='y = copy.deepcopy(x)',
        use_instead='y = x.clone()',
        fix_safety=("Safe for a tensor the function computed: `.clone()` gives the same values. Unsafe for a "
                    "parameter or buffer of a submodule: a deep copy is a new leaf, `.clone()` stays connected to "
                    "the original in autograd."),
    )
    bad = (
        Example('''import torch
import copy

class M(torch.nn.Module):
    def forward(self, x):
        y = copy.deepcopy(x)  # <-
        return y * 2
'''),
        Example('''import torch
import copy

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        frozen = copy.deepcopy(self.proj.weight)  # <-
        return x @ frozen.t()
''', inputs="[(torch.randn(8, 4),), (torch.randn(8, 4),)]"),
    )
    good = (
        Example('''import torch
import copy

class M(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        return y * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if called_function(node, ctx, {"copy.deepcopy"}):
            arg = argument(node, 0)
            if arg is not None and (ctx.facts.kind(arg) in (Kind.TENSOR, Kind.TENSORS, Kind.MODULE, Kind.MODULES)
                                    or (type(arg) is cst.Name and arg.value == "self")
                                    or ctx.facts.is_submodule_tensor(arg)):  # `self.proj.weight`: verified 2.13
                return "GB4198"
        return None

    def fix_for(self, node, ctx):  # noqa: ANN001
        arg = node.args[0].value
        clone = cst.Call(func=cst.Attribute(value=arg, attr=cst.Name("clone")))
        if ctx.facts.is_submodule_tensor(arg):
            # unsafe: a deep copy of a Parameter is a new leaf; `.clone()` stays connected to the original in autograd
            return (node, clone, "Use `.clone()` (stays in autograd, unlike a deep copy of a Parameter)", True)
        if not ctx.facts.is_tensor(arg):
            return None
        return (node, clone, "Use `.clone()`")
