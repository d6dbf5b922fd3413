"""TS130: environment lookups (`os.environ`, `os.getenv`)."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class OsEnviron(SemanticScriptRule):
    code = "TS130"
    file_gate = (b"environ", b"getenv")
    name = "os-environ-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    message = '`{name}` is not scriptable; read it once in `__init__`'
    doc = RuleDoc(
        what="Flags `os.environ` and `os.getenv` in code `torch.jit.script` compiles.",
        why="Scripting fails with `attribute lookup is not defined on python value of type '_Environ'` "
            "(`os.getenv`: `Can't get source`). A scripted module is meant to run without Python, so "
            "configuration has to be fixed when it is built.",
        example='if os.environ.get("DEBUG_SHAPES"):\n    print(x.shape)',
        use_instead='# __init__: self.debug = os.environ.get("DEBUG_SHAPES", "") != ""\nif self.debug:\n    print(x.shape)',
    )
    bad = (
        Example('''
import os
import torch
class M(torch.nn.Module):
    def forward(self, x):
        if os.environ.get("DEBUG"):  # <-
            return x
        return x * 2
'''),
        Example('''
import os
import torch
class M(torch.nn.Module):
    def forward(self, x):
        scale = float(os.getenv("SCALE", "2"))  # <-
        return x * scale
'''),
    )
    good = (
        Example('''
import os
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.debug = os.environ.get("DEBUG", "") != ""
    def forward(self, x):
        if self.debug:
            return x
        return x * 2
''', check="script-call"),
    )

    def visit_Attribute(self, node: cst.Attribute, ctx) -> None:  # noqa: ANN001
        if ctx.function is None or node.attr.value not in ("environ", "getenv", "environb"):
            return
        name = ctx.qualify(node)
        if name in ("os.environ", "os.getenv", "os.environb"):
            ctx.report(node, self.message.format(name=name))

    def visit_Name(self, node: cst.Name, ctx) -> None:  # noqa: ANN001
        # `from os import environ, getenv`
        if ctx.function is None or node.value not in ("environ", "getenv") or node.value in ctx.facts.env:
            return
        if ctx.facts.aliases.get(node.value) in ("os.environ", "os.getenv") and not (
                type(ctx.parent) is cst.Attribute and ctx.parent.attr is node):
            ctx.report(node, self.message.format(name=ctx.facts.aliases[node.value]))
