"""GB401 tensor-item-graph-break: Flags `.item()` on a tensor inside code that torch.compile traces"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import tensor_method
from compilelint.semantic.constructs import Construct


class TensorItemGraphBreak(CallBreakRule):
    code = 'GB401'
    construct = Construct.DATA_DEPENDENT_VALUE
    name = 'tensor-item-graph-break'
    call_gate = gate(methods={"item"})
    loop_fix = "keep the value as a tensor"
    reads_tensor_data = True
    gb_id = 'GB0124'
    severity = "warning"
    message = '`.item()` breaks the graph; keep the value a 0-d tensor'
    version_note = ('No break with torch._dynamo.config.capture_scalar_outputs=True or fullgraph=True (2.13); the rule is silent in a file that sets capture_scalar_outputs = True.')
    has_fix = True
    doc = RuleDoc(
        what='Flags `.item()` on a tensor inside code that torch.compile traces.',
        why=('Dynamo cannot represent the Python number `.item()` returns in its graph, so it splits the graph '
             "there and runs the rest in a new frame; the resumed code then guards on the number's value, so each "
             'new value can recompile. Inside a loop Dynamo gives up on the whole frame (GB7000). Or set '
             '`torch._dynamo.config.capture_scalar_outputs = True`.'),
        example='scale = x.abs().max().item()\nreturn x / scale',
        use_instead='scale = x.abs().max()\nreturn x / scale',
        fix_safety=("Unsafe: the value stays a 0-d tensor instead of a Python number, so code that formats it, "
                    "uses it as a size or compares its type sees something else."),
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()  # <-
        return x / scale
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        scale = x.abs().max()
        return x / scale
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and not node.args and tensor_method(node, ctx, ("item",)):
            return None if ctx.module_facts.capture_scalar_outputs else "GB0124"
        return None

    def fix_for(self, node, ctx):  # noqa: ANN001
        # x.item() -> x: keeps the value as a 0-d tensor (unsafe: the type changes from number to tensor)
        return (node, node.func.value, "Keep the value as a 0-d tensor (drop `.item()`)", True)
