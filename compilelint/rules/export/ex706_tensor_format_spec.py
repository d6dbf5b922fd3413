"""EX706: a tensor formatted with a format spec (`f"{loss:.4f}"`, `"{:.3f}".format(t)`, `format(t, ".2f")`)
under torch.export."""
from __future__ import annotations

import string

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.nodes import string_value
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.export._common import ExportRule


class ExportTensorFormatSpec(ExportRule):
    code = "EX706"
    call_gate = gate(methods={"format"}, bare={"format"})
    name = "export-tensor-format-spec"
    torch_error = ("unsupported format string passed to FakeTensor.__format__",)
    message = '{what}: fake tensors take no spec; export fails'
    version_note = ("Verified with torch.export.export(strict=False), the 2.13 default; without a spec "
                    "(`f\"{t}\"`) it exports. With strict=True (2.13) the spec exports too.")
    doc = RuleDoc(
        what=("Flags a tensor formatted with a format spec in code torch.export reaches: an f-string field with a "
              "spec (`f\"{delta.norm():.4f}\"`), `str.format` with a spec for a tensor argument, `format(t, spec)`."),
        why=("torch.export (non-strict, the 2.13 default) runs the module on fake tensors. A fake tensor has no "
             "value to format, and its `__format__` rejects any spec, so a debug line such as "
             "`print(f\"|delta|={delta.norm():.4f}\")` stops the export with `TypeError: unsupported format string "
             "passed to FakeTensor.__format__`, although the line does nothing to the model's output."),
        example='print(f"iter {i}: |delta|={delta.norm():.4f}")',
        use_instead='print(f"iter {i}: |delta|={delta.norm()}")   # or no print in the exported forward',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x
        for i in range(2):
            delta = torch.tanh(y) * 0.1
            y = y + delta
            print(f"iter {i}: |delta|={delta.norm():.4f}")  # <-
        return y
''', inputs="[(torch.randn(4, 3),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        msg = "mean {:.3f}".format(x.mean())  # <-
        return x - x.mean()
''', inputs="[(torch.randn(4, 3),)]"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        y = x
        for i in range(2):
            delta = torch.tanh(y) * 0.1
            y = y + delta
            print(f"iter {i}: |delta|={delta.norm()}")
        return y
''', inputs="[(torch.randn(4, 3),)]"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        msg = "rows {:d}".format(x.shape[0])
        return x - x.mean()
''', inputs="[(torch.randn(4, 3),)]"),
    )

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression, ctx) -> None:  # noqa: ANN001
        if node.format_spec and ctx.facts.is_tensor(node.expression):
            self.report(ctx, node, self.message.format(what="format spec for a tensor in an f-string"))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        func = node.func
        if type(func) is cst.Name and func.value == "format" and "format" not in ctx.facts.env:
            if len(node.args) == 2 and _nonempty_literal(node.args[1].value) and ctx.facts.is_tensor(node.args[0].value):
                self.report(ctx, node, self.message.format(what="`format()` of a tensor with a spec"))
        elif type(func) is cst.Attribute and func.attr.value == "format" and string_value(func.value) is not None:
            for arg in _specified_args(string_value(func.value), node.args):
                if ctx.facts.is_tensor(arg.value):
                    self.report(ctx, node, self.message.format(what="`str.format` spec for a tensor"))
                    return


def _nonempty_literal(expr: cst.BaseExpression) -> bool:
    return bool(string_value(expr))


def _specified_args(template: str, args) -> list:  # noqa: ANN001
    """The arguments of `template.format(*args)` that a field with a format spec formats."""
    positional = [a for a in args if a.keyword is None and not a.star]
    named = {a.keyword.value: a for a in args if a.keyword is not None}
    out, auto = [], 0
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return []
    for _, field, spec, _ in fields:
        if field is None:
            continue
        key = field.split(".", 1)[0].split("[", 1)[0]
        if key == "":
            index, auto = auto, auto + 1
            arg = positional[index] if index < len(positional) else None
        elif key.isdigit():
            arg = positional[int(key)] if int(key) < len(positional) else None
        else:
            arg = named.get(key)
        if spec and arg is not None and key == field:  # a spec on the argument itself, not on an attribute of it
            out.append(arg)
    return out
