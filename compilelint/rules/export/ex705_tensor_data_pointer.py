"""EX705: code that needs a tensor's memory (`t.data_ptr()`, `t.untyped_storage().data_ptr()`,
`copy.deepcopy(t)`) under torch.export."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportTensorDataPointer(ExportRule):
    code = "EX705"
    call_gate = gate(names={"copy.deepcopy"}, methods={"data_ptr"})
    name = "export-tensor-data-pointer"
    torch_error = ("Cannot access data pointer of Tensor",)
    message = '{what}: fake tensors have no memory; export fails'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default. With strict=True (2.13) "
                    "`data_ptr()` exports (Dynamo treats it as a constant) and `copy.deepcopy(t)` fails with "
                    "`Unsupported: Attempted to copy.deepcopy a tensor`.")
    doc = RuleDoc(
        what=("Flags `.data_ptr()` of a tensor or of its storage, and `copy.deepcopy()` of a tensor, in code "
              "torch.export reaches."),
        why=(('torch.export (non-strict, the 2.13 default) runs the module on fake tensors, which have shapes and '
              'dtypes but no memory. Reading an address (a memo keyed by `x.data_ptr()`), or deep-copying a tensor,'
              ' which copies its storage, stops the export with `RuntimeError: Cannot access data pointer of '
              'Tensor`. An address is not something an exported graph could depend on anyway: it differs on every '
              'call. Key caches by shape and dtype instead of address, and use `t.clone()` for a copy.')),
        example=("key = x.data_ptr()\nif key not in self._memo:\n    self._memo[key] = self.table(x.shape[1])"),
        use_instead="key = (x.shape[1], x.dtype)  # or compute it every call\nif key not in self._memo: ...",
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._memo = {}

    def forward(self, x):
        key = x.data_ptr()  # <-
        if key not in self._memo:
            self._memo[key] = torch.arange(x.shape[1], dtype=x.dtype)
        return x + self._memo[key]
''', inputs="[(torch.randn(3, 5),)]"),
        Example('''import copy
import torch

class M(torch.nn.Module):
    def forward(self, q, k):
        att = (q @ k.transpose(-1, -2)).softmax(-1)
        snapshot = copy.deepcopy(att.detach())  # <-
        return att @ k, snapshot
''', inputs="[(torch.randn(4, 8), torch.randn(6, 8))]"),
        Example('''import copy
import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        frozen = copy.deepcopy(self.proj.weight)  # <-
        return x @ frozen.t()
''', inputs="[(torch.randn(8, 4),)]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + torch.arange(x.shape[1], dtype=x.dtype)
''', inputs="[(torch.randn(3, 5),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, q, k):
        att = (q @ k.transpose(-1, -2)).softmax(-1)
        snapshot = att.detach().clone()
        return att @ k, snapshot
''', inputs="[(torch.randn(4, 8), torch.randn(6, 8))]"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "data_ptr" and not node.args:
            if ctx.facts.kind(func.value) in (Kind.TENSOR, Kind.UNKNOWN) and ctx.qualify(func.value) != "torch":
                self.report(ctx, node, self.message.format(what="`.data_ptr()`"))
        elif ctx.qualify(func) == "copy.deepcopy" and len(node.args) == 1 and (
                ctx.facts.is_tensor(node.args[0].value) or ctx.facts.is_submodule_tensor(node.args[0].value)):
            self.report(ctx, node, self.message.format(what="`copy.deepcopy()` of a tensor"))
