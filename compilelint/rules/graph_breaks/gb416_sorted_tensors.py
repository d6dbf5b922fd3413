"""GB416 sorted-tensors-graph-break: Flags the builtin `sorted(...)` applied to a tensor or a list/tuple of tensors, or with a `key=lambda` that reads tensor data"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import argument, called_function


class SortedTensorsGraphBreak(CallBreakRule):
    code = 'GB416'
    also_gb_ids = ('GB0059',)
    name = 'sorted-tensors-graph-break'
    call_gate = gate(names={"sorted"}, methods={"sort"})
    loop_fix = "use torch.sort/argsort"
    gb_id = 'GB0207'
    severity = "warning"
    message = '`sorted()` over tensors breaks the graph; use `torch.sort`'
    doc = RuleDoc(
        what='Flags the builtin `sorted(...)` applied to a tensor or a list/tuple of tensors in compiled code, a list\'s `.sort()` over tensors, or sorting anything (e.g. `range(n)`) with a `key=lambda` that returns a tensor or a value read from one (`key=lambda i: s[i]`).',
        why='Sorting Python objects by tensor keys needs each comparison as a Python bool, which Dynamo cannot trace (GB0207), so it breaks the graph.',
        example='parts = sorted(x.unbind(0), key=lambda t: t.sum())',
        use_instead='parts = x[torch.argsort(x.sum(1))]',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = sorted(x.unbind(0), key=lambda t: t.sum())  # <-
        return parts[0] * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = x.sum(-1)
        order = sorted(range(x.shape[0]), key=lambda i: s[i])  # <-
        return x[torch.tensor(order)]
''', inputs="[(torch.randn(5, 6),), (torch.randn(5, 6),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = list(x.unbind(0))
        parts.sort(key=lambda t: t.sum())  # <-
        return torch.stack(parts)
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        s = x.sum(-1)
        idx = list(range(x.shape[0]))
        idx.sort(key=lambda i: s[i])  # <-
        return x[torch.tensor(idx)]
''', inputs="[(torch.randn(5, 6),), (torch.randn(5, 6),)]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        parts = x[torch.argsort(x.sum(1))]
        return parts[0] * 2
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        order = sorted([3, 1, 2])
        return x * order[0]
'''),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        order = sorted(range(x.shape[0]), key=lambda i: -i)  # Python ints, pure-Python key
        return x[torch.tensor(order)]
''', inputs="[(torch.randn(5, 6),), (torch.randn(5, 6),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        vals = [3, 1, 2]
        vals.sort()
        y, _ = x.sort(dim=-1)
        return y * vals[0]
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "sort":
            return "GB0207" if ctx.facts.list_sort_compares_tensors(node) else None
        if called_function(node, ctx, {"sorted"}):
            arg = argument(node, 0)
            if arg is not None and ctx.facts.kind(arg) is Kind.TENSORS:
                return "GB0207"
            if arg is not None and ctx.facts.kind(arg) is Kind.TENSOR:
                return "GB0059"
            if ctx.facts.sort_compares_tensors(node):
                return "GB0207"  # sorted(range(n), key=lambda i: s[i]): the key reads tensor data (2.13)
        return None
