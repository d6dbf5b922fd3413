"""What the EX rules share: they target torch.export (non-strict, the 2.13 default) and report nothing in a
branch export never runs (`if not torch.compiler.is_exporting():` / `is_compiling()`). Not a rule itself
(no `code`), so the registry skips it."""
from __future__ import annotations

import libcst as cst

from compilelint.analysis.dynamo import dead_under_export
from compilelint.rules.base import Rule


class ExportRule(Rule):
    family = "export"
    targets = ("export",)
    severity = "error"

    def report(self, ctx, node: cst.CSTNode, message: str, owner: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        """Report at `node`; `owner` is the node being visited when `node` is part of it (an `if`'s test)."""
        if not dead_under_export(ctx, owner or node):
            ctx.report(node, message)
