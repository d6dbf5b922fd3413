"""TS120: `print(...)` with keyword arguments."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.torchscript._semantic import SemanticScriptRule


class PrintKeywords(SemanticScriptRule):
    code = "TS120"
    call_gate = gate(bare={"print"})
    name = "print-keywords-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = False  # a fix is offered only for some forms (see `what`)
    message = 'scripted `print` takes no `{kw}=`'
    doc = RuleDoc(
        what="Flags `print(...)` calls with keyword arguments (`sep=`, `end=`, `file=`, `flush=`) in code "
             "`torch.jit.script` compiles. An unsafe fix (drop `sep=`/`end=`/`flush=`) is offered when `file=` is absent.",
        why="Scripting fails with `print doesn't accept any keyword arguments` (`file=sys.stderr` fails on "
            "the stream object first). A plain `print(a, b)` scripts.",
        example='print("loss", loss, sep=": ")',
        use_instead='print("loss: " + str(loss))',
        fix_safety=("Unsafe: dropping `sep=`, `end=` or `flush=` changes what is printed (separator, line ending, "
                    "buffering)."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        print("shape", x.shape, sep=": ")  # <-
        return x
'''),
        Example('''
import sys
import torch
class M(torch.nn.Module):
    def forward(self, x):
        print("bad input", file=sys.stderr)  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        print("shape:", x.shape)
        return x
''', check="script-call"),
    )

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        if not (ctx.function is not None and type(node.func) is cst.Name and node.func.value == "print"
                and "print" not in ctx.facts.env):
            return
        keywords = [a for a in node.args if a.keyword is not None]
        if not keywords:
            return
        kws = [a.keyword.value for a in keywords]
        if "file" in kws:
            ctx.report(node, self.message.format(kw="file", fix="drop `file=` (scripted `print` writes to stdout) "
                                                                 "or log from a `@torch.jit.ignore` method"))
            return
        positional = [a for a in node.args if a.keyword is None]
        if positional:
            positional[-1] = positional[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        fixed = node.with_changes(args=positional)
        ctx.report(node, self.message.format(kw=kws[0], fix="drop the keyword arguments (join the strings yourself)"),
                   fix=(node, fixed, "drop print's keyword arguments (changes the separator/line ending)"),
                   unsafe_fix=True)
