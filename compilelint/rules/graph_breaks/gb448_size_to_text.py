"""GB448 size-to-text-graph-break: Flags a tensor size or shape formatted into text in a form Dynamo cannot trace once it is dynamic"""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.dynamo import BREAKS, break_severity, dead_under_dynamo, size_text
from compilelint.rules.base import Example, RuleDoc
from compilelint.rules.graph_breaks._common import BreakRule


class SizeToText(BreakRule):
    code = 'GB448'
    name = 'size-to-text-graph-break'
    detector = 'size_to_text'
    gb_id = 'GB0088'
    severity = "error"
    message = ('`{code}` formats the size `{size}` into text: once the input size changes Dynamo makes it '
               'dynamic and cannot build the string, so it {effect}; keep sizes out of strings in compiled code '
               '(log them from the caller), or use a plain f-string field `{{n}}` where a new size may recompile '
               '(RC512)')
    skip_effect = 'gives up on the whole function, which then runs eagerly on every call ({gb})'
    break_effect = 'breaks the graph here ({gb})'
    version_note = ('Verified on 2.13 with five input sizes (its examples): f"{x.shape}" and f"{tuple(x.shape)}", '
                    '`"%d" % n` and `"{}".format(n)` of a size skip the frame (GB0088; Dynamo reports the f-string and '
                    '`.format` forms where the string is first used); `str(n)` GB0059 and `repr(n)` GB6053 break the '
                    'graph and recompile for each size. A plain `{n}` field of one size specialises it instead (RC512); '
                    '`str(x.shape)` is GB424; f"{n:d}" of a dynamic size crashed Dynamo (InternalTorchDynamoError; '
                    'not flagged). Messages of `assert` statements and `raise` are built only on failure: not flagged. On '
                    '2.11 (GPU machine): `str(n)` as on 2.13; `"%d" % n` skips the frame with GB0208; f"{x.shape}", '
                    'f"{tuple(x.shape)}" and `.format` break the graph (GB0156) instead of skipping it.')
    doc = RuleDoc(
        what=('Flags, in a module\'s `forward` or a `@torch.compile` function, a tensor size formatted into a '
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

    def check(self, node: cst.CSTNode, ctx, report_at: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        gb_id = BREAKS[self.detector](node, ctx)
        if not gb_id or dead_under_dynamo(ctx, node):
            return
        size = size_text(node, ctx)[0]
        if gb_id == "GB0088":
            severity, effect = "error", self.skip_effect.format(gb=gb_id)
        else:
            severity, effect = break_severity(ctx, node, "warning"), self.break_effect.format(gb=gb_id)
        ctx.report(node, self.message.format(code=ctx.code_for(node), size=ctx.code_for(size), effect=effect),
                   severity=severity, gb_id=gb_id)

    def visit_FormattedString(self, node: cst.FormattedString, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.Modulo:
            self.check(node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)
