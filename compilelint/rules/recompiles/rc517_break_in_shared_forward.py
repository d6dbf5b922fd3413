"""RC517: a graph break in a forward that several differently built instances share as a frame."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.breaks import first_break
from compilelint.semantic.frames import shared_frame_builds
from compilelint.semantic.paths import dead_under_dynamo
from compilelint.torchapi.guards import RECOMPILE_LIMIT

_EXAMPLE_INPUTS = "[(torch.randn(2, 16, 8),) for _ in range(5)]"


class BreakInSharedForward(Rule):
    code = "RC517"
    name = "break-in-shared-forward"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    claims_resume_frame = True
    message = 'break in shared `{cls}.forward`: {n} instances recompile it'
    version_note = ("Verified on 2.13 (backend=\"eager\", its examples over five calls): three instances of a block "
                    "of other widths whose forward calls `torch.jit.isinstance` compile the forward and its resume "
                    "frame once per instance (guards `requires_grad mismatch`, parameter `size mismatch`); the same "
                    "block without the break compiles once. monai's UpCat (built four times in BasicUNet) recompiled "
                    "the same way on 2.13.")
    doc = RuleDoc(
        what=("Flags the first graph break (any construct the GB rules detect) in the `forward` of a class that "
              "the same file builds twice or more with differing arguments (`self.up1 = Up(16, 8)`, "
              "`self.up2 = Up(8, 4)`)."),
        why=("A break in a submodule's forward makes Dynamo break the caller at the call and compile the "
             "forward as a frame of its own, with one more frame for the code after the break. A frame belongs to "
             "a code object, which every instance of the class shares, so its guards are on the instance it was "
             "compiled for: parameter shapes are static, and the first instance fed the model's input sees "
             "`requires_grad=False` where the next sees a hidden state that requires grad. Each distinct instance "
             "recompiles the frame, and once `torch._dynamo.config.recompile_limit` (8) is reached the rest of "
             "them run eagerly."),
        example=("class Up(nn.Module):\n    def forward(self, x, skip):\n"
                 "        if skip is not None and torch.jit.isinstance(skip, torch.Tensor):\n"
                 "            x = x + skip\n        return self.conv(x)"),
        use_instead=("class Up(nn.Module):\n    def forward(self, x, skip):\n"
                     "        if skip is not None:\n            x = x + skip\n        return self.conv(x)"),
    )
    bad = (
        Example('''from typing import Optional

import torch
from torch import nn


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 1)

    def forward(self, x, skip: Optional[torch.Tensor]):
        if skip is not None and torch.jit.isinstance(skip, torch.Tensor):  # <-
            x = x + skip
        return self.conv(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = Up(16, 8)
        self.up2 = Up(8, 4)
        self.up3 = Up(4, 4)

    def forward(self, x):
        x = self.up1(x, x)
        x = self.up2(x, x)
        return self.up3(x, x)
''', inputs=_EXAMPLE_INPUTS),
    )
    good = (
        Example('''from typing import Optional

import torch
from torch import nn


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, 1)

    def forward(self, x, skip: Optional[torch.Tensor]):
        if skip is not None:
            x = x + skip
        return self.conv(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = Up(16, 8)
        self.up2 = Up(8, 4)
        self.up3 = Up(4, 4)

    def forward(self, x):
        x = self.up1(x, x)
        x = self.up2(x, x)
        return self.up3(x, x)
''', inputs=_EXAMPLE_INPUTS),
    )

    def _check(self, node: cst.CSTNode, ctx, report_at: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        if ctx.loop_depth > 0:  # a break in a loop makes Dynamo skip the whole frame: nothing recompiles
            return
        if ctx.class_node is None or ctx.function is None or ctx.function.name.value != "forward":
            return
        done = ctx.__dict__.setdefault("_shared_forward_reported", set())
        if id(ctx.function) in done:
            return
        found = first_break(node, ctx)  # before the builds: most nodes break nothing, and most files never
        if found is None or dead_under_dynamo(ctx, node):  # need where their classes are built
            return
        names = shared_frame_builds(ctx)
        if not names:
            return
        done.add(id(ctx.function))
        shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
        ctx.report(report_at or node, self.message.format(
            cls=ctx.class_node.name.value, gb=found[0], n=len(names), names=shown, limit=RECOMPILE_LIMIT))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_Subscript(self, node: cst.Subscript, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx, node.test)

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx, node.test)
