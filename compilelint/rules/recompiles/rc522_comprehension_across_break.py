"""RC522: a list comprehension whose element breaks the graph: the resume frame after it guards the list's length."""
from __future__ import annotations

import dataclasses
import json

import libcst as cst

from compilelint.analysis.index import call_target, first_break_reached
from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.loops import comprehension_breaks
from compilelint.semantic.paths import dead_under_dynamo

_BAD = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def match(self, row):
        scale = float(row.abs().max())  # Python reads the data: a graph break
        return self.proj(row) / scale

    def forward(self, x):
        outs = [self.match(row) for row in x]  # <-
        return torch.stack(outs)
'''

_BAD_COUNT = '''import torch
from torch import nn


def norm_of(row):
    return row / row.norm().item()  # a graph break


class M(nn.Module):
    def forward(self, x, b: int):
        outs = [norm_of(x[k]) for k in range(b)]  # <-
        return torch.cat(outs)
'''

_GOOD = '''import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        scale = x.abs().amax(dim=1, keepdim=True)  # every row at once, a tensor: no break, no list
        return self.proj(x) / scale
'''


class ComprehensionAcrossBreak(Rule):
    code = "RC522"
    name = "comprehension-across-break"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    claims_resume_frame = True
    tree_facts = True
    uses_graph_breaks = True
    message = "list built across a graph break in `{call}`: recompiles per length"
    max_python = "3.11"  # 3.12 inlines comprehensions (PEP 709): the break is one in a loop, no recompile
    version_note = ("Verified on 2.13 with Python 3.11 (backend=\"eager\", four calls): a comprehension over 2, 3, "
                    "4, 5 rows whose element calls a method that reads `float(...)` of a tensor compiles the code "
                    "after it once per length (`len(___stack0) == 2`, then 3, 4), and the caller once per row "
                    "count; the vectorised twin with the batch marked dynamic compiles once. kornia's LightGlue "
                    "(`_forward_pairs`: `[self._forward(...) for k in range(b)]`) recompiled so. Python 3.12 "
                    "inlines comprehensions (PEP 709): the break is then one in a loop, and Dynamo runs the whole "
                    "function eagerly instead.")
    doc = RuleDoc(
        what=("Flags a list comprehension whose element (or condition) breaks the graph, itself or in a function "
              "of the tree it calls (in any file), where its length is decided by the input: it walks a tensor, "
              "a parameter, or `range` of a value that is not a literal (not `range(3)` or `self.blocks`)."),
        why=("On Python 3.11 a comprehension is a function of its own, which Dynamo inlines. A break in its "
             "element breaks the caller at the comprehension: the comprehension runs as a frame of its own, and "
             "the code after it becomes a resume frame that receives the list on its stack and guards its length "
             "(`len(___stack0) == 2`). Each new length (a batch of 2, then 3 pairs) recompiles that frame, up to "
             "`recompile_limit` (8), after which it runs eagerly; every element call is a frame of its own too."),
        example="outs = [self.match(row) for row in x]  # match() calls float(row.abs().max())",
        use_instead=("scale = x.abs().amax(dim=1, keepdim=True)  # every row at once: no break, no list\n"
                     "out = self.proj(x) / scale"),
    )
    bad = (Example(_BAD, inputs="[(torch.randn(n, 4),) for n in (2, 3, 4, 5)]"),
           Example(_BAD_COUNT, inputs="[(torch.randn(6, 4), b) for b in (2, 3, 4, 5)]"))
    good = (Example(_GOOD, inputs=("[(x,) for n in (2, 3, 4, 5) for x in [torch.randn(n, 4)]"
                                   " if torch._dynamo.mark_dynamic(x, 0) or True]"),
                    note="The batch is marked dynamic: the vectorised twin compiles once for every size."),)

    def visit_ListComp(self, node: cst.ListComp, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or dead_under_dynamo(ctx, node):
            return
        found = comprehension_breaks(node, ctx)
        if found is None:
            return
        own, callees = found
        if own or callees:  # its element breaks itself, or one of these calls (kind, target) may
            ctx.report(node, pending=json.dumps({"own": bool(own), "callees": [] if own else list(callees)}))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the comprehension where its element breaks (itself, or in what a call of it runs); name where."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        pending = json.loads(finding.pending)
        if pending["own"]:
            return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(call="its element")))
        summary = index.summary_at(finding.path)
        if summary is None or not pending["callees"]:
            return None
        owner = finding.context.partition(".")[0] if "." in finding.context else None
        for kind, target in pending["callees"]:
            key = call_target(index, summary.module, kind, target, owner)
            if key is not None and first_break_reached(index, key) is not None:
                # a copy: the engine settles the same finding again after placing other files' findings
                return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(
                    call=brief(target, 28))))
        return None
