"""TS135: `getattr` / `hasattr` with a name that is not a string literal."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class DynamicGetattr(SemanticScriptRule):
    code = "TS135"
    call_gate = gate(bare={"getattr", "hasattr"})
    name = "dynamic-getattr-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{func}` needs a literal attribute name; use a ModuleDict'
    doc = RuleDoc(
        what="Flags `getattr(obj, name)` and `hasattr(obj, name)` whose name is not a string literal, in code "
             "`torch.jit.script` compiles.",
        why="Scripting fails with `getattr's second argument must be a string literal` (f-strings and "
            "variables included). `getattr(self, \"head\")` with a literal scripts.",
        example="for name in self.names:\n    x = getattr(self, name)(x)",
        use_instead="self.blocks = nn.ModuleDict(...)\nfor block in self.blocks.values():\n    x = block(x)",
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer0 = torch.nn.Linear(3, 3)
        self.n = 1
    def forward(self, x):
        for i in range(self.n):
            x = getattr(self, f"layer{i}")(x)  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3)])
        self.layer0 = torch.nn.Linear(3, 3)
    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        if hasattr(self, "layer0"):
            x = getattr(self, "layer0")(x)
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if not (ctx.function is not None and type(func) is cst.Name and func.value in ("getattr", "hasattr")
                and func.value not in ctx.facts.env and len(node.args) >= 2):
            return
        name = node.args[1].value
        if type(name) not in (cst.SimpleString, cst.ConcatenatedString):
            ctx.report(node, self.message.format(func=func.value))
