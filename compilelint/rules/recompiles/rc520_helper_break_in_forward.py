"""RC520: a forward calls a function (of this file or another) that breaks the graph."""
from __future__ import annotations

import dataclasses
import json
import os

import libcst as cst

from compilelint.analysis.index import call_target, first_break_reached, several_instances
from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message
from compilelint.semantic.calls import tree_callee
from compilelint.semantic.frames import instance_state_after
from compilelint.semantic.paths import dead_under_dynamo

_INPUTS = "[(torch.randn(10, 8), torch.randint(0, 10, (2, 30))) for _ in range(5)]"

_BAD = '''import torch
from torch import nn


def drop_self_loops(edges):
    keep = edges[0] != edges[1]
    return edges[:, keep]


class Conv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x, edges):
        edges = drop_self_loops(edges)  # <-
        return self.lin(x) + edges.float().mean()


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.ModuleList([Conv(8, 16), Conv(16, 16), Conv(16, 4)])

    def forward(self, x, edges):
        for conv in self.convs:
            x = conv(x, edges)
        return x
'''


class HelperBreakInForward(Rule):
    code = "RC520"
    name = "helper-break-in-forward"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    claims_resume_frame = True
    tree_facts = True
    uses_graph_breaks = True
    message = "graph break in `{call}` ({where}): recompiles per instance"
    version_note = ("Verified on 2.13 (backend=\"eager\", five calls of one size): three layers of other widths "
                    "whose forward calls a helper that indexes with a boolean mask compile the code after the call "
                    "once per layer (`requires_grad mismatch`, parameter `size mismatch`); with the mask replaced "
                    "by a static-shape `torch.where` nothing recompiles. torch_geometric's GCNConv, GATConv and "
                    "GATv2Conv (gcn_norm, remove_self_loops in another file) recompiled so.")
    doc = RuleDoc(
        what=("Flags a call in a module's `forward` (outside loops) to a function of the tree, in this file or "
              "another, that breaks the graph itself or in what it calls (a finding of a graph-break rule there), "
              "where the tree holds two or more instances of the class (in a module container, filled by a "
              "factory such as `self.convs.append(self.init_conv(...))`, or in two attributes)."),
        why=("Dynamo inlines the helper, so its break is a break of the forward at this call: the forward becomes "
             "a frame of its own, and the code after the call a resume frame. Those frames belong to the class's "
             "code, shared by every instance, and are guarded on the instance they run for: parameter shapes are "
             "static, and a stack's first layer is fed the model's input (`requires_grad=False`) where the next "
             "is fed a hidden state that requires grad. Each distinct instance recompiles them, and past "
             "`recompile_limit` (8) they run eagerly. A class the tree builds once (or never: a model's top "
             "module) compiles its frames once, so the rule asks for two or more instances."),
        example=("def drop_self_loops(edges):\n    return edges[:, edges[0] != edges[1]]\n\n"
                 "class Conv(nn.Module):\n    def forward(self, x, edges):\n"
                 "        edges = drop_self_loops(edges)\n        return self.lin(x) + edges.float().mean()"),
        use_instead=("def drop_self_loops(edges):  # static shape: loops become a dummy edge\n"
                     "    keep = edges[0] != edges[1]\n    return torch.where(keep, edges, edges.new_zeros(()))"),
    )
    bad = (Example(_BAD, inputs=_INPUTS),)
    good = (Example(_BAD.replace("    return edges[:, keep]", "    return torch.where(keep, edges, edges.new_zeros(()))")
                    .replace("  # <-", ""), inputs=_INPUTS),)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        fn = ctx.function
        if fn is None or ctx.class_node is None or fn.name.value != "forward" or ctx.loop_depth > 0:
            return  # a break in a loop makes Dynamo skip the whole frame: nothing of it recompiles
        callee = tree_callee(node, ctx)
        if callee is None:
            return
        kind, target = callee
        func = node.func
        if dead_under_dynamo(ctx, node) or not instance_state_after(node, ctx):
            return  # nothing of the instance read after the break: its resume frame guards none of it
        ctx.report(node, pending=json.dumps([kind, target, ctx.code_for(func)]))

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the call where what it runs breaks the graph; name the call and where it breaks."""
        if not finding.pending:
            return finding  # settled already: a copy the engine keeps (the original still holds its data)
        kind, target, written = json.loads(finding.pending)
        summary = index.summary_at(finding.path)
        if summary is None:
            return None
        owner = finding.context.partition(".")[0]
        if not several_instances(index, f"{summary.module}:{owner}"):
            return None  # one instance (or none built in the tree): its frames compile once
        key = call_target(index, summary.module, kind, target, owner or None)
        found = first_break_reached(index, key) if key is not None else None
        if found is None:
            return None
        brk = found[1]
        where = os.path.basename(brk.path) + (f":{brk.line}" if brk.line else "")
        # a copy: the engine settles the same finding again after placing other files' findings
        return dataclasses.replace(finding, pending="", message=fit_message(cls.message.format(call=brief(f"{written}(...)", 24), where=brief(where, 26))))
