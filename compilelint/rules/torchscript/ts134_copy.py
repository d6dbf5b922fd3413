"""TS134: `copy.deepcopy` / `copy.copy`."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class CopyModule(SemanticScriptRule):
    code = "TS134"
    call_gate = gate(names={"copy.deepcopy", "copy.copy"})
    name = "copy-module-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = True
    message = '`{name}` is not scriptable; use `.clone()`'
    doc = RuleDoc(
        what="Flags `copy.deepcopy(...)` and `copy.copy(...)` in code `torch.jit.script` compiles.",
        why="Scripting fails inside the copy module (`prim::id(AnyClassType? x) -> int`, `attribute lookup is "
            "not defined on python value of type 'dict'`). On a tensor, torch.export fails too.",
        example="state = copy.deepcopy(x)",
        use_instead="state = x.clone()",
        fix_safety=("Safe for a tensor: `.clone()` gives the same values, dtype and device; it stays connected to "
                    "autograd where a deep copy makes a new leaf (or raises, for a non-leaf)."),
    )
    bad = (
        Example('''
import copy
import torch
class M(torch.nn.Module):
    def forward(self, x):
        y = copy.deepcopy(x)  # <-
        return y * 2
'''),
        Example('''
from copy import copy
import torch
class M(torch.nn.Module):
    def forward(self, x):
        y = copy(x)  # <-
        return y * 2
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        y = x.clone()
        return y * 2
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        name = ctx.qualify(node.func)
        if name not in ("copy.deepcopy", "copy.copy"):
            return
        if type(node.func) is cst.Name and node.func.value in ctx.facts.env:
            return
        fix = None
        if len(node.args) == 1 and not node.args[0].star and ctx.facts.is_tensor(node.args[0].value) \
                and type(node.args[0].value) in (cst.Name, cst.Attribute, cst.Subscript, cst.Call):
            arg = node.args[0].value
            fix = (node, cst.Call(func=cst.Attribute(value=arg, attr=cst.Name("clone"))), "use `.clone()`")
        ctx.report(node, self.message.format(name=name), fix=fix)
