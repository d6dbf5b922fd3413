"""GB419 disabled-callee-graph-break: Flags calls, from compiled code, to functions (or methods of the same class) decorated with `@torch.compiler.disable` in the same file"""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule


class DisabledCalleeGraphBreak(CallBreakRule):
    code = 'GB419'
    name = 'disabled-callee-graph-break'
    loop_fix = "call it outside the loop"
    gb_id = 'GB0098'
    severity = "warning"
    message = 'call of a `@torch.compiler.disable`d function breaks the graph'
    doc = RuleDoc(
        what='Flags calls, from compiled code, to functions (or methods of the same class) decorated with `@torch.compiler.disable` in the same file.',
        why='A disabled function is by definition not traced: every call splits the graph into the part before and the part after (GB0098), and inside a loop the whole frame runs eagerly.',
        example='@torch.compiler.disable\ndef log_stats(x): ...\n\ndef forward(self, x):\n    log_stats(x)',
        use_instead='def forward(self, x):\n    return self.body(x)\n# call log_stats(x) from the training loop',
    )
    bad = (
        Example('''import torch

@torch.compiler.disable
def log_stats(x):
    return x + 0

class M(torch.nn.Module):
    def forward(self, x):
        y = log_stats(x)  # <-
        return y * 2
'''),
    )
    good = (
        Example('''import torch

def stats(x):
    return x + 0

class M(torch.nn.Module):
    def forward(self, x):
        y = stats(x)
        return y * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is not cst.Call:
            return None
        disabled = ctx.module_facts.disabled
        func = node.func
        if type(func) is cst.Name and func.value in disabled and func.value not in ctx.facts.env:
            return "GB0098"
        if (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"
                and ctx.class_name and f"{ctx.class_name}.{func.attr.value}" in disabled):
            return "GB0098"
        return None
