"""GB420 explicit-graph-break: Flags `torch._dynamo.graph_break()`"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule, remove_statement_fix
from compilelint.semantic.calls import called_function


class ExplicitGraphBreak(CallBreakRule):
    code = 'GB420'
    name = 'explicit-graph-break'
    call_gate = gate(names={"torch._dynamo.graph_break"})
    loop_fix = "remove graph_break()"
    gb_id = 'GB0025'
    severity = "warning"
    message = '`torch._dynamo.graph_break()` splits the graph here'
    has_fix = True
    doc = RuleDoc(
        what='Flags `torch._dynamo.graph_break()` in compiled code.',
        why='It splits the graph on purpose; left over from debugging it costs a graph per call, and inside a loop it makes Dynamo skip the whole frame.',
        example='y = self.a(x)\ntorch._dynamo.graph_break()\nreturn self.b(y)',
        use_instead='return self.b(self.a(x))',
        fix_safety=("Unsafe: the break may have been put there on purpose (around code that must run eagerly); "
                    "removing it changes what is compiled."),
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x + 1
        torch._dynamo.graph_break()  # <-
        return y * 2
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x + 1
        return y * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        return "GB0025" if called_function(node, ctx, {"torch._dynamo.graph_break"}) else None

    def fix_for(self, node, ctx):  # noqa: ANN001
        return remove_statement_fix(node, ctx, 'Remove torch._dynamo.graph_break()')
