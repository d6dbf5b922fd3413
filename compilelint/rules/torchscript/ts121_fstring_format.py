"""TS121: f-string format specs and conversions."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc


class FStringFormat(Rule):
    code = "TS121"
    name = "fstring-format-in-torchscript"
    family = "torchscript"
    targets = ("torchscript",)
    severity = "error"
    has_fix = False  # a fix is offered only for some forms (see `what`)
    message = 'f-string with {form} is not scriptable; use plain `{{expr}}`'
    doc = RuleDoc(
        what="Flags f-string replacement fields with a format spec (`{v:.2f}`), a conversion (`{v!r}`) or the "
             "`=` specifier (`{v=}`) in code `torch.jit.script` compiles. A fix is offered for `!s` (the default conversion).",
        why="Scripting fails with `Don't support formatting in JoinedStr` / `Don't support conversion in "
            "JoinedStr`. Plain f-strings and `str.format` with specs script.",
        example='msg = f"loss {loss:.3f}"',
        use_instead='msg = "loss {:.3f}".format(loss)',
        fix_safety=("Safe: `!s` is the conversion an f-string applies anyway, so the text does not change."),
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        msg = f"dim {x.dim():03d}"  # <-
        return x
'''),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        msg = f"dim {x.dim()!r}"  # <-
        return x
'''),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        msg = f"dim {x.dim()}" + "{:03d}".format(x.dim())
        return x
''', check="script-call"),
    )

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression, ctx) -> None:  # noqa: ANN001
        if ctx.function is None:
            return
        if node.format_spec is not None:
            ctx.report(node, self.message.format(form="a format spec"))
        elif node.conversion is not None or node.equal is not None:
            fix = None
            if node.conversion == "s" and node.equal is None:
                fix = (node, node.with_changes(conversion=None), "drop the `!s` conversion (str is the default)")
            ctx.report(node, self.message.format(form="a `!` conversion or `=`"), fix=fix)
