"""RC521: a module called in a loop that breaks the graph: each instance's forward is a frame of its own."""
from __future__ import annotations

import dataclasses

import libcst as cst

from compilelint.analysis.index import skipped_loops_over
from compilelint.rules.base import Example, Rule, RuleDoc, brief, fit_message

_INPUTS = "[(torch.randn(2, 8),) for _ in range(5)]"

_BAD = '''import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.lin = nn.Linear(cin, cout)

    def forward(self, x):
        return torch.relu(self.lin(x))  # <-


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8, 16), Block(16, 16), Block(16, 4)])

    def forward(self, x):
        norms = []
        for block in self.blocks:
            x = block(x)
            norms.append(x.norm().item())
        return x, norms
'''


# Another model of the tree loops over blocks of the same class without breaking (Dynamo inlines them there):
# the breaking loop over a container of that class alone still makes each of its blocks a frame of its own.
_INLINED_ELSEWHERE = _BAD.replace('''

class M(nn.Module):''', '''

class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(8, 8), Block(8, 8)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class M(nn.Module):''')


class ModuleInSkippedLoop(Rule):
    code = "RC521"
    name = "module-in-skipped-loop"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    tree_facts = True
    uses_graph_breaks = True
    message = "each `{cls}` in `{attr}` is its own frame: recompiles per instance"
    version_note = ("Verified on 2.13 (backend=\"eager\", five calls of one size): three `Block`s of other widths "
                    "called in a loop that calls `.item()` compile `Block.forward` once per block (`requires_grad "
                    "mismatch`, parameter `size mismatch`); with the norm kept a tensor nothing recompiles. "
                    "torch_geometric's NeuralFingerprint (its `Linear`s, bias or none), kornia's LightGlue (its "
                    "`TransformerLayer`s) recompiled so, and torch_geometric's MFConv (its `Linear`s, which MLP "
                    "inlines elsewhere).")
    doc = RuleDoc(
        what=("Flags the `forward` of a module class whose instances a module container of the tree holds "
              "(`nn.ModuleList([...])`, `self.layers.append(...)`), when a function loops over that container, "
              "calling each element (`for layer in self.layers: x = layer(x)`, `self.layers[i](x)`), and "
              "something in the loop breaks the graph: a graph break of its own, in a call, or in an element's "
              "forward (in any file). Where another loop of the tree over such a container inlines the "
              "instances (no break), only a breaking loop over a container holding this class alone is named: "
              "a polymorphic container (a factory's blocks) may owe its break to elements the other never holds."),
        why=("A graph break inside a loop makes Dynamo skip the whole function: it runs eagerly, and every module "
             "it calls is compiled as a frame of its own. The forward's frame belongs to the class's code, shared "
             "by every instance, and is guarded on the instance it runs for: parameter shapes are static, a "
             "parameter that is `None` in one instance is a tensor in another, and the first layer is fed the "
             "model's input (`requires_grad=False`) where the next is fed a hidden state that requires grad. "
             "Each distinct instance recompiles it, and past `recompile_limit` (8) the rest run eagerly. Without "
             "the break, Dynamo inlines every element into the caller's one graph."),
        example=("for block in self.blocks:\n    x = block(x)\n    norms.append(x.norm().item())"),
        use_instead=("for block in self.blocks:\n    x = block(x)\n    norms.append(x.norm())  # a 0-d tensor: no break"),
    )
    bad = (Example(_BAD, inputs=_INPUTS), Example(_INLINED_ELSEWHERE, inputs=_INPUTS))
    good = (Example(_BAD.replace("x.norm().item()", "x.norm()").replace("  # <-", ""), inputs=_INPUTS),
            Example(_INLINED_ELSEWHERE.replace("x.norm().item()", "x.norm()").replace("  # <-", ""), inputs=_INPUTS))

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx) -> None:  # noqa: ANN001
        cls = ctx.class_node
        if node is not ctx.function or cls is None or node.name.value != "forward" or not cls.bases:
            return
        if any(d.endswith("overload") for d in ctx.decorators):
            return  # a typing overload: its body never runs
        body = node.body.body if type(node.body) is cst.IndentedBlock else ()
        first = next((s for s in body if not _docstring(s)), None)
        if first is not None:  # the first statement: a line the frame runs (its `def` ran at import)
            ctx.report(first, f"\0{cls.name.value}")

    @classmethod
    def settle(cls, finding, index, scope):  # noqa: ANN001, ANN206
        """Keep the forward where a loop that breaks calls its instances; name the container."""
        parts = finding.message.split("\0")
        if len(parts) != 2:
            return None
        summary = next((s for s in index.modules.values() if s.path == finding.path), None)
        if summary is None:
            return None
        loops = [(key, attr) for key, attr in skipped_loops_over(index, f"{summary.module}:{parts[1]}")
                 if "dynamo" in scope.get(key, ())]
        if not loops:
            return None
        attr = loops[0][1]
        return dataclasses.replace(finding, message=fit_message(cls.message.format(cls=brief(parts[1], 24), attr=brief(attr, 20))))


def _docstring(stmt: cst.BaseStatement) -> bool:
    return (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Expr
            and type(stmt.body[0].value) in (cst.SimpleString, cst.ConcatenatedString))
