"""RC518: two graph breaks inside the arguments of a local list's or dict's method call recompile every call."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, Rule, RuleDoc
from compilelint.semantic.breaks import breaks_in_arguments
from compilelint.semantic.paths import dead_under_dynamo
from compilelint.torchapi.guards import HELD_ACROSS_BREAKS, RECOMPILE_LIMIT

_INPUTS = "[(torch.randn(16, 2), torch.linspace(0, 1, 16)) for _ in range(5)]"


class CallHeldAcrossBreaks(Rule):
    code = "RC518"
    name = "call-held-across-breaks"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    claims_resume_frame = True
    call_gate = gate(methods=HELD_ACROSS_BREAKS)
    message = '`{call}(...)` held across {n} graph breaks: recompiles every call'
    version_note = ("Verified on 2.13 (backend=\"eager\", five calls): `d.update({...})` with two boolean-mask "
                    "indexings among its values, `lst.extend([...])` and `lst.append(torch.cat([...]))` with two: "
                    "the first break's resume frame recompiles on every call (4 over 5 calls; with three breaks the "
                    "first two do); the same values computed into locals first recompile once (automatic dynamic "
                    "of the masked size). kornia's LoFTR coarse matching recompiled so in three resume frames.")
    doc = RuleDoc(
        what=("Flags each graph break but the last inside the arguments of `<local>.append/extend/update(...)`, where "
              "`<local>` is a list or dict of the function and the arguments hold two or more breaks "
              "(boolean-mask indexing, `.item()`, ...)."),
        why=("While Python evaluates a call's arguments, the bound method sits on the stack. At a graph break Dynamo "
             "hands the stack to the resume function and guards what it holds; the bound method of a local list or "
             "dict is a new object every call, guarded by a weak reference that dies with the call. The next call "
             "finds the cache entry invalidated and compiles the resume function again, every call, until the "
             "recompile limit, after which that code runs eagerly."),
        example='out.update({"pos": x[conf > 0.5], "conf": conf[conf > 0.5]})',
        use_instead='pos = x[conf > 0.5]\nscores = conf[conf > 0.5]\nout.update({"pos": pos, "conf": scores})',
    )
    bad = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, conf):
        out = {"x": x}
        out.update(
            {
                "pos": x[conf > 0.5],  # <-
                "conf": conf[conf > 0.5],
            }
        )
        return out
''', inputs=_INPUTS),
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, conf):
        parts = []
        parts.append(torch.cat([x[conf > 0.5], x[conf < 0.5]]))  # <-
        return parts
''', inputs=_INPUTS),
    )
    good = (
        Example('''import torch


class M(torch.nn.Module):
    def forward(self, x, conf):
        out = {"x": x}
        pos = x[conf > 0.5]
        scores = conf[conf > 0.5]
        out.update({"pos": pos, "conf": scores})
        return out
''', inputs=_INPUTS),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if ctx.function is None or ctx.loop_depth > 0:  # a break in a loop: Dynamo skips the frame, nothing recompiles
            return
        if not (type(func) is cst.Attribute and func.attr.value in HELD_ACROSS_BREAKS and type(func.value) is cst.Name):
            return
        receiver = func.value.value
        if receiver == "self" or receiver in ctx.aliases or ctx.kind(func.value) in (Kind.TENSOR, Kind.MODULE):
            return
        found = breaks_in_arguments(node, ctx)
        if len(found) < 2 or dead_under_dynamo(ctx, node):
            return
        for brk in found[:-1]:
            ctx.report(brk, self.message.format(call=f"{receiver}.{func.attr.value}", n=len(found),
                                                 limit=RECOMPILE_LIMIT))
