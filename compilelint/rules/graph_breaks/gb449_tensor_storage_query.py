"""GB449 tensor-storage-query-graph-break: Flags a tensor's storage asked about in compiled code: data_ptr() compared, storage_offset(), is_pinned(), untyped_storage()"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import tensor_method
from compilelint.torchapi.dynamo import STORAGE_QUERIES


class TensorStorageQuery(CallBreakRule):
    code = 'GB449'
    also_gb_ids = ('GB0156', 'GB0208')
    name = 'tensor-storage-query-graph-break'
    call_gate = gate(methods=STORAGE_QUERIES | {"untyped_storage"})
    gb_id = 'GB5976'
    severity = "warning"
    message = 'tensor storage query breaks the graph'
    version_note = ('Verified on 2.13 (its examples): `x.data_ptr() != self._ptr` GB5976, `x.storage_offset()` '
                    'GB0208, `x.untyped_storage().nbytes()` GB0156; `x.is_pinned()`, `x.is_shared()` and the typed '
                    '`x.storage()` GB0208. On 2.11 the data_ptr() comparison makes Dynamo skip the frame '
                    '(a break with no id; that example is judged from 2.13), the others hold as on 2.13. A data_ptr() '
                    'used as a number '
                    '(`p % 2`) makes Dynamo skip the frame (GB0088, reported where the number is used): not '
                    'flagged; an unused `x.data_ptr()` is traced.')
    doc = RuleDoc(
        what=('Flags, in compiled code, `t.data_ptr()` in a comparison (`==`, `!=`, `in`), `t.storage_offset()`, '
              '`t.is_pinned()`, `t.is_shared()`, `t.storage()` and `t.untyped_storage()` on a tensor.'),
        why=('Pipelines cache derived tensors keyed by the input\'s memory (`if x.data_ptr() != self._ptr:`) or '
             'read storage details of views. Dynamo works on fake tensors that have no real memory, so it cannot '
             'answer these and splits the graph at each one.'),
        example='if x.data_ptr() != self._ptr:\n    self._ptr = x.data_ptr()\n    self._norm = x / x.norm()',
        use_instead='# recompute (it is traced and cheap), or check the cache outside the compiled module\nreturn x / x.norm()',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._ptr = None
        self._norm = None

    def forward(self, x):
        if x.data_ptr() != self._ptr:  # <-
            self._ptr = x.data_ptr()
            self._norm = x / x.norm()
        return self._norm * 2
''', min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x + x.storage_offset()  # <-
''', gb_id="GB0208"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x * x.untyped_storage().nbytes()  # <-
''', gb_id="GB0156"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        if x.is_pinned():  # <-
            return x.to("cpu", non_blocking=True) * 2
        return x * 2
''', gb_id="GB0208"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x / x.norm() * 2
'''),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """A tensor's storage asked about in compiled code: `t.data_ptr()` in a comparison (`!=`, `==`: GB5976),
        `t.storage_offset()`, `t.is_pinned()`, `t.is_shared()` and the typed `t.storage()` (GB0208),
        `t.untyped_storage()` (GB0156). A data_ptr() used as a number skips the frame (GB0088, reported where it is
        used): not flagged here."""
        t = type(node)
        if t is cst.Comparison:
            sides = [node.left] + [c.comparator for c in node.comparisons]
            if any(type(c.operator) in (cst.Equal, cst.NotEqual, cst.In, cst.NotIn) for c in node.comparisons) and any(
                    tensor_method(e, ctx, ("data_ptr",)) for e in sides if type(e) is cst.Call):
                return "GB5976"
            return None
        if t is cst.Call and type(node.func) is cst.Attribute and not node.args:
            if tensor_method(node, ctx, STORAGE_QUERIES):
                return "GB0208"
            if tensor_method(node, ctx, ("untyped_storage",)):
                return "GB0156"
        return None

    def visit_Comparison(self, node: cst.Comparison, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
