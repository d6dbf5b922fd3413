"""GB452 jit-isinstance-graph-break: `torch.jit.isinstance(...)` breaks Dynamo's graph."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import CallBreakRule
from compilelint.semantic.calls import call_name
from compilelint.torchapi.dynamo import JIT_ISINSTANCE


class JitIsinstanceGraphBreak(CallBreakRule):
    code = "GB452"
    name = "jit-isinstance-graph-break"
    call_gate = gate(names=JIT_ISINSTANCE)
    loop_fix = "use the builtin `isinstance` (TorchScript refines it too)"
    gb_id = "GB0007"
    severity = "warning"
    message = '`torch.jit.isinstance` breaks the graph; use `isinstance`'
    version_note = ("Verified on 2.13 (its examples): `torch.jit.isinstance(x_e, torch.Tensor)` breaks (GB0007) with "
                    "a tensor and with None; the builtin isinstance does not.")
    doc = RuleDoc(
        what="Flags calls of `torch.jit.isinstance` in compiled code.",
        why=(('Libraries written for TorchScript refine optional inputs with `torch.jit.isinstance`. Dynamo does '
              "not trace it (it is on the skip list), so each call splits the graph, and a module's forward that "
              'calls it becomes a frame of its own that every instance of the class shares. Use the builtin '
              '`isinstance(x, torch.Tensor)` or `x is not None`, which TorchScript refines as well and Dynamo '
              'traces.')),
        example="if x_e is not None and torch.jit.isinstance(x_e, torch.Tensor):\n    x = torch.cat([x_e, x], 1)",
        use_instead="if x_e is not None and isinstance(x_e, torch.Tensor):\n    x = torch.cat([x_e, x], 1)",
        fix_safety="No fix is offered: TorchScript refines both spellings, but a container type such as "
                   "`List[int]` has no builtin isinstance equivalent.",
    )
    bad = (
        Example('''from typing import Optional

import torch


class M(torch.nn.Module):
    def forward(self, x, skip: Optional[torch.Tensor]):
        if skip is not None and torch.jit.isinstance(skip, torch.Tensor):  # <-
            x = x + skip
        return x * 2
''', inputs="[(torch.randn(3), torch.randn(3))]"),
    )
    good = (
        Example('''from typing import Optional

import torch


class M(torch.nn.Module):
    def forward(self, x, skip: Optional[torch.Tensor]):
        if skip is not None and isinstance(skip, torch.Tensor):
            x = x + skip
        return x * 2
''', inputs="[(torch.randn(3), torch.randn(3))]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        if type(node) is cst.Call and call_name(node, ctx) in JIT_ISINSTANCE:
            return "GB0007"
        return None
