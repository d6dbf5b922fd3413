"""GB448 size-to-text-graph-break: Flags a tensor size or shape formatted into text in a form Dynamo cannot trace once it is dynamic"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.calls import gate
from compilelint.analysis.tensors import Kind
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import TextBreakRule
from compilelint.semantic.frames import dynamic_size, message_of_equality_assert, reaches_entry_values
from compilelint.semantic.paths import built_only_on_failure


def _size_text(node: cst.CSTNode, ctx) -> tuple[cst.BaseExpression, str] | None:  # noqa: ANN001
    """(size expression, gb id) when `node` formats a tensor size into text in a form that breaks the graph
    once the size is dynamic (verified on 2.13 with five sizes): `f"{x.shape}"` / `f"{tuple(x.shape)}"`,
    `"%d" % n` and `"{}".format(n)` GB0088, each skipping the frame; `str(n)` GB0059 and `repr(n)` GB6053.
    A plain `{n}` field specialises instead (RC512); `str(x.shape)` is GB424's."""
    if not reaches_entry_values(ctx) or built_only_on_failure(node, ctx) or message_of_equality_assert(node, ctx):
        return None
    t = type(node)
    if t is cst.FormattedString:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression and part.format_spec is None and not part.conversion:
                if ctx.facts.kind(part.expression) is Kind.SHAPE and dynamic_size(part.expression, ctx, True):
                    return part.expression, "GB0088"
        return None
    if t is cst.BinaryOperation and type(node.operator) is cst.Modulo and type(node.left) in (
            cst.SimpleString, cst.ConcatenatedString):
        items = [e.value for e in node.right.elements] if type(node.right) is cst.Tuple else [node.right]
        found = next((i for i in items if dynamic_size(i, ctx, False)), None)
        return (found, "GB0088") if found is not None else None
    if t is cst.Call:
        func = node.func
        if type(func) is cst.Attribute and func.attr.value == "format" and type(func.value) in (
                cst.SimpleString, cst.ConcatenatedString):
            found = next((a.value for a in node.args if dynamic_size(a.value, ctx, False)), None)
            return (found, "GB0088") if found is not None else None
        if type(func) is cst.Name and func.value in ("str", "repr") and len(node.args) == 1 and not node.args[0].keyword:
            if dynamic_size(node.args[0].value, ctx, False):
                return node.args[0].value, "GB0059" if func.value == "str" else "GB6053"
    return None


class SizeToText(TextBreakRule):
    code = 'GB448'
    name = 'size-to-text-graph-break'
    call_gate = gate(names={"str", "repr"}, methods={"format"})
    gb_id = 'GB0088'
    severity = "error"
    message = 'size `{subject}` formatted into text: {effect}'
    version_note = ('Verified on 2.13 with five input sizes (its examples): f"{x.shape}" and f"{tuple(x.shape)}", '
                    '`"%d" % n` and `"{}".format(n)` of a size skip the frame (GB0088; Dynamo reports the f-string and '
                    '`.format` forms where the string is first used); `str(n)` GB0059 and `repr(n)` GB6053 break the '
                    'graph and recompile for each size. A plain `{n}` field of one size specialises it instead (RC512); '
                    '`str(x.shape)` is GB424; f"{n:d}" and format(n) of a dynamic size make Dynamo fail outright (InternalTorchDynamoError: '
                    'GB451). Messages of `assert` statements and `raise` are built only on failure: not flagged. On '
                    '2.11: `str(n)` as on 2.13; `"%d" % n` skips the frame with GB0208; f"{x.shape}", '
                    'f"{tuple(x.shape)}" and `.format` break the graph (GB0156) instead of skipping it.')
    doc = RuleDoc(
        what=('Flags, in a module\'s `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, a tensor size formatted into a '
              'string with `%`, `.format`, `str()` or `repr()`, and a whole shape in an f-string (`f"{x.shape}"`).'),
        why=('Once an input\'s size changes between calls (a point count, a crop, a batch), Dynamo recompiles with '
             'the size symbolic (automatic dynamic). It cannot format a symbolic size in these forms: `%`, '
             '`.format` and a shape in an f-string make it abandon the frame (GB0088), and the whole `forward` '
             'runs eagerly from then on; `str()`/`repr()` split the graph (GB0059/GB6053).'),
        example='tag = "pts%d" % points.shape[0]',
        use_instead='tag = f"pts{points.shape[0]}"  # traced; each new size recompiles (RC512), or log from the caller',
    )
    bad = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, points):
        return points * len("pts%d" % points.shape[0])  # <-
''', inputs="[(torch.randn(n, 4),) for n in (100, 120, 140)]", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        return x * len(f"{x.shape}")  # <-
''', inputs="[(torch.randn(n, 4),) for n in (5, 6, 7)]", min_torch="2.13"),
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = x.size(0)
        tag = "rows=" + str(n)  # <-
        return x * len(tag)
''', inputs="[(torch.randn(k, 4),) for k in (5, 6, 7)]", gb_id="GB0059"),
    )
    good = (
        Example('''import torch

class M(torch.nn.Module):
    def forward(self, x):
        n = x.size(0)
        assert n > 0, "rows=%d" % n
        return x * 2
''', inputs="[(torch.randn(k, 4),) for k in (5, 6, 7)]"),
    )

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        found = _size_text(node, ctx)
        return found[1] if found else None

    def subject(self, node: cst.CSTNode, ctx) -> cst.BaseExpression:  # noqa: ANN001
        return _size_text(node, ctx)[0]

    def skips_frame(self, node: cst.CSTNode, ctx, gb_id: str) -> bool:  # noqa: ANN001
        return gb_id == "GB0088"  # `%`, `.format`, a shape in an f-string; str/repr only break
