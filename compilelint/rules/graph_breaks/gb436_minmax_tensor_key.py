"""GB436 minmax-tensor-key-graph-break: Flags the builtin `min(...)` / `max(...)` over one iterable with a
`key=lambda` that reads tensor data"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, called_function


class MinMaxTensorKeyGraphBreak(CallBreakRule):
    code = 'GB436'
    name = 'minmax-tensor-key-graph-break'
    call_gate = gate(names={"min", "max"})
    gb_id = 'GB0193'
    severity = "warning"
    message = '`min`/`max` key reads tensor data; use `argmin`/`argmax`'
    version_note = 'Verified on 2.13: GB0193 ("invalid call to builtin op handler"); a pure-Python key is traced.'
    doc = RuleDoc(
        what=('Flags the builtin `min(xs, key=...)` / `max(xs, key=...)` in compiled code when the `key=lambda` '
              'returns a tensor or a value read from one (`max(range(n), key=lambda i: s[i])`, '
              '`max(parts, key=lambda t: t.sum())`).'),
        why=('Choosing by tensor keys compares tensor values in Python; Dynamo\'s handler for the builtin rejects '
             'those arguments (GB0193), so the graph breaks at the call and the pick runs eagerly.'),
        example='best = max(range(x.shape[0]), key=lambda i: scores[i])',
        use_instead='best = torch.argmax(scores, dim=0, keepdim=True)  # index with it: x[best]',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = x.sum(1)
        i = max(range(x.shape[0]), key=lambda j: s[j])  # <-
        return x[i] * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = [x[0], x[1]]
        m = min(parts, key=lambda t: t.sum())  # <-
        return m * 2
'''),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        i = torch.argmax(x.sum(1), dim=0, keepdim=True)  # a 1-element index tensor: advanced indexing
        return x[i] * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = max(range(x.shape[0]), key=lambda j: -j)  # Python ints, pure-Python key
        return x[n] * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """`min(xs, key=lambda ...)` / `max(...)` whose key reads tensor data (GB0193, Dynamo's builtin handler
        rejects the comparison; a pure-Python key over ints is traced)."""
        q = called_function(node, ctx, {"min", "max"})
        key = argument(node, 99, "key") if q else None
        if type(key) is cst.Lambda and ctx.facts.sort_compares_tensors(node):
            return "GB0193"
        return None
