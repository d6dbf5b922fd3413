"""GB451 number-format-fails-dynamo: Flags a size or number argument formatted with format() or a numeric format spec, which makes Dynamo fail outright"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.calls import argument, call_name
from compilelint.semantic.frames import mentions_dynamic_size, number_argument, reaches_entry_values
from compilelint.semantic.paths import built_only_on_failure, dead_under_dynamo


_NUMERIC_FORMAT_TYPES = frozenset("bcdeEfFgGnoxX%")


def _format_crash(node: cst.CSTNode, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """What is formatted, when `node` formats a number Dynamo holds symbolically in a way that makes Dynamo fail
    outright (InternalTorchDynamoError: the compiled call raises; verified on 2.13 with the size or value changed
    between calls): `format(n)` / `format(n, spec)` of a tensor size or of an int/float argument
    (AsPythonConstantNotImplementedError), and an f-string field with a numeric format spec (`{h:d}`, `{n:04d}`,
    `{w / 2:.1f}`) of a tensor size or arithmetic on one (Dynamo turns the size into text first, then applies
    the spec: "Unknown format code 'd' for object of type 'str'"). An argument with a spec in an f-string
    skips the frame instead (GB447); a spec without a type (`{n:>5}`) specialises the size (no failure)."""
    if not reaches_entry_values(ctx) or built_only_on_failure(node, ctx):
        return None
    t = type(node)
    if t is cst.Call:
        if type(node.func) is not cst.Name or node.func.value != "format" or call_name(node, ctx) != "format":
            return None
        arg = argument(node, 0)
        if arg is not None and (number_argument(arg, ctx) or mentions_dynamic_size(arg, ctx)):
            return arg
        return None
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is not cst.FormattedStringExpression or not part.format_spec:
                continue
            spec = "".join(p.value for p in part.format_spec if type(p) is cst.FormattedStringText)
            if spec and spec[-1] in _NUMERIC_FORMAT_TYPES and mentions_dynamic_size(part.expression, ctx):
                return part.expression
    return None


class NumberFormatFailsDynamo(Rule):
    code = 'GB451'
    name = 'number-format-fails-dynamo'
    family = "graph-break"
    targets = ("dynamo",)
    dynamo_error = True
    severity = "error"
    call_gate = gate(names={"format"})
    message = 'number format of `{subject}`: Dynamo fails once it is dynamic'
    version_note = ('Verified on 2.13 and 2.11 (its examples), from the second distinct size or value: `format(n)` and '
                    '`format(n, spec)` of a size or an int/float argument fail with AsPythonConstantNotImplementedError, '
                    'an f-string field with a numeric spec (`{h:d}`, `{n:04d}`, `{w / 2:.1f}`) of a size with '
                    '"Unknown format code \'d\' for object of type \'str\'", both as InternalTorchDynamoError naming '
                    'the line. An int argument with a spec in an f-string skips the frame instead (GB447); `{n:>5}` '
                    'and `{n!r}` of a size specialise it (no failure). Its examples hold on 2.11 too, and '
                    'the probe confirms it there.')
    doc = RuleDoc(
        what=('Flags, in a module\'s `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, `format(n)` / `format(n, spec)` of a '
              'tensor size or an int/float argument, and an f-string field with a numeric format spec (`d`, `f`, '
              '`x`, ...) of a tensor size or arithmetic on one.'),
        why=('Fixed-width tags and zero-padded names (`f"{h:d}x{w:d}"`, `format(step, "05d")`) are common in code that '
             'caches or logs per size. The first call compiles with the size as a constant and works; when the size '
             'changes, Dynamo makes it symbolic and cannot format it with a spec: the compiled call raises an '
             'InternalTorchDynamoError instead of running, in production, on the first new size.'),
        example='tag = f"{x.shape[-2]:d}x{x.shape[-1]:d}"',
        use_instead='tag = f"{x.shape[-2]}x{x.shape[-1]}"  # or build the tag outside the compiled model',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        tag = f"{x.shape[-2]:d}x{x.shape[-1]:d}"  # <-
        return x * len(tag)
''', inputs="[(torch.randn(1, n, n),) for n in (8, 9, 10)]", check="dynamo-error"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x, step: int):
        return x * len(format(step, "05d"))  # <-
''', inputs="[(torch.randn(3), k) for k in (1, 2, 3)]", check="dynamo-error"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, points):
        n = points.shape[0]
        return points * len(f"{n / 1000:.1f}k points")  # <-
''', inputs="[(torch.randn(k, 4),) for k in (100, 120, 140)]", check="dynamo-error"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        tag = f"{x.shape[-2]}x{x.shape[-1]}"
        return x * len(tag)
''', inputs="[(torch.randn(1, n, n),) for n in (8, 9, 10)]", check="dynamo-error"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        assert x.shape[0] > 0, f"{x.shape[0]:d} rows"
        return x * 2
''', inputs="[(torch.randn(n, 2),) for n in (8, 9, 10)]", check="dynamo-error"),
    )

    def _check(self, node: cst.CSTNode, ctx) -> None:  # noqa: ANN001
        subject = _format_crash(node, ctx)
        if subject is not None and not dead_under_dynamo(ctx, node):
            ctx.report(node, self.message.format(code=brief(ctx.code_for(node)), subject=brief(ctx.code_for(subject), 24)))

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)

    def visit_FormattedString(self, node: cst.FormattedString, ctx) -> None:  # noqa: ANN001
        self._check(node, ctx)
