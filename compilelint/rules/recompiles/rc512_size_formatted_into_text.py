from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Example, Rule, RuleDoc, brief
from compilelint.semantic.frames import dynamic_size, message_of_equality_assert, reaches_entry_values
from compilelint.semantic.paths import built_only_on_failure


def _formatted_size(node: cst.FormattedString, ctx) -> cst.BaseExpression | None:  # noqa: ANN001
    """The first plain field (no format spec, no conversion) of an f-string in a compiled frame's entry that
    holds a tensor size (`{x.shape[0]}`, `{x.size(-1)}`, `{x.numel()}`, `{h}` from `h, w = x.shape[-2:]`),
    not a module attribute's. Dynamo specialises a size formatted so: every distinct size recompiles
    (verified on 2.13: five sizes, four recompiles; one without the f-string, then a dynamic graph)."""
    if not reaches_entry_values(ctx) or built_only_on_failure(node, ctx) or message_of_equality_assert(node, ctx):
        return None
    for part in node.parts:
        if type(part) is not cst.FormattedStringExpression or part.format_spec is not None or part.conversion:
            continue
        if dynamic_size(part.expression, ctx, False):
            return part.expression
    return None


class SizeFormattedIntoText(Rule):
    code = "RC512"
    name = "size-formatted-into-text"
    family = "recompile"
    targets = ("recompile",)
    severity = "warning"
    message = 'size `{size}` formatted into text: each new size recompiles'
    version_note = ("Verified on 2.13 (its examples also on 2.11) with five input sizes: f\"n{x.shape[0]}\", f\"{x.size(0)}\", f\"{x.numel()}\", "
                    "names unpacked from a shape, and an f-string message passed to torch._assert (built on every call): four "
                    "recompiles each, one without the f-string; a message of an `assert` statement or in a `raise` "
                    "is built only on failure (one recompile, not flagged); torch._check(cond, lambda: f\"...\") broke "
                    "the graph (GB9158). Other forms of "
                    "a dynamic size are graph breaks, not flagged here: `str(n)` GB0059 (str(x.shape): GB424), "
                    "`repr(n)` GB6053, and f\"{x.shape}\", `\"%d\" % n`, `\"{}\".format(n)` skip the frame (GB0088); "
                    "f\"{x.shape[0]:d}\" crashed Dynamo (InternalTorchDynamoError).")
    doc = RuleDoc(
        what=("Flags, in a module's `forward`, a `@torch.compile` function or a method `forward` passes its inputs to, an f-string field holding a tensor "
              "size: `{x.shape[0]}`, `{x.size(-1)}`, `{x.numel()}`, or a name taken from a shape."),
        why=("Perception code caches anchors, grids and positional encodings by input size under a string key "
             "(`self.cache[f\"{h}x{w}\"]`). When the size changes, Dynamo would recompile once and make it dynamic "
             "(automatic dynamic); a size formatted into text is specialised instead, so each new point count, "
             "image size or text length compiles again, and after 8 the frame falls back to eager."),
        example='h, w = x.shape[-2:]\nkey = f"{h}x{w}"\nif key not in self.grids:\n    self.grids[key] = make_grid(h, w)',
        use_instead='h, w = x.shape[-2:]\ngrid = make_grid(h, w)  # traced once for all sizes (dynamic)',
    )
    bad = (
        Example('''
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.grids = {}

    def forward(self, x):
        h, w = x.shape[-2:]
        key = f"{h}x{w}"  # <-
        if key not in self.grids:
            self.grids[key] = torch.arange(w, dtype=x.dtype).expand(h, w)
        return x + self.grids[key]
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, points):
        tag = f"pts{points.shape[0]}"  # <-
        return points * len(tag)
''', inputs="[(torch.randn(n, 4),) for n in (100, 120, 140, 160)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H % 2 == 0, f"height {H} must be even")  # <-
        return x.mean((2, 3))
''', inputs="[(torch.randn(1, 3, n, 8),) for n in (8, 10, 12, 14)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def _tag(self, h, w):
        return f"{h}x{w}"  # <-

    def forward(self, x):
        h, w = x.shape[-2:]
        return x * len(self._tag(h, w))
''', inputs="[(torch.randn(1, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
    )
    good = (
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        h, w = x.shape[-2:]
        grid = torch.arange(w, dtype=x.dtype).expand(h, w)
        return x + grid
''', inputs="[(torch.randn(2, n, n + 1),) for n in (3, 4, 5, 6)]", check="recompile-each"),
        Example('''
import torch
class M(torch.nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        torch._assert(H % 2 == 0, "height must be even")
        assert W > 0, f"width {W} must be positive"
        return x.mean((2, 3))
''', inputs="[(torch.randn(1, 3, n, 8 + n),) for n in (8, 10, 12, 14)]", check="recompile-each"),
    )

    def visit_FormattedString(self, node: cst.FormattedString, ctx) -> None:  # noqa: ANN001
        size = _formatted_size(node, ctx)
        if size is not None:
            ctx.report(node, self.message.format(code=brief(ctx.code_for(node), 24), size=brief(ctx.code_for(size), 24)))
