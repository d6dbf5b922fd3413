"""TS113: `del` of an attribute, a slice or a tensor element."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class DelForm(SemanticScriptRule):
    code = "TS113"
    name = "unsupported-del-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`del {what}` is not scriptable; {fix}'
    doc = RuleDoc(
        what="Flags `del` of an attribute (`del self.cache`), of a slice (`del xs[1:]`) and of a tensor element "
             "in code `torch.jit.script` compiles.",
        why="Scripting fails with `del statements are only supported for deleting list and dict items and "
            "variables` or `del statements only support deletion at a single index`; deleting a tensor "
            "element crashes the compiler (INTERNAL ASSERT). `del name`, `del xs[i]`, `del d[k]` script.",
        example="del xs[0:2]",
        use_instead="xs = xs[2:]",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 1
    def forward(self, x):
        del self.k  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        xs = [x, x, x]
        del xs[0:2]  # <-
        return xs[0]
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        xs = [x, x, x]
        xs = xs[2:]
        d = {"a": x}
        del d["a"]
        del xs[0]
        y = x * 2
        del y
        return x
''', check="script-call"),
    )

    def visit_Del(self, node: cst.Del, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        targets = node.target.elements if type(node.target) in (cst.Tuple, cst.List) else None
        for target in ([e.value for e in targets] if targets is not None else [node.target]):
            if type(target) is cst.Attribute:
                ctx.report(target, self.message.format(
                    what="<attribute>", fix="assign `None` instead (an Optional type)"))
            elif type(target) is cst.Subscript:
                if any(type(e.slice) is cst.Slice for e in target.slice):
                    ctx.report(target, self.message.format(what="<slice>", fix="rebind the list (`xs = xs[2:]`)"))
                elif ctx.facts.is_tensor(target.value):
                    ctx.report(target, self.message.format(
                        what="<tensor element>", fix="build a new tensor (`torch.cat`)"))
