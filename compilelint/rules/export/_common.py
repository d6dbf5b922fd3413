"""What the EX rules share: they target torch.export (non-strict, the 2.13 default) and report nothing in a
branch export never runs (`if not torch.compiler.is_exporting():` / `is_compiling()`). Not a rule itself
(no `code`), so the registry skips it."""
from __future__ import annotations

import libcst as cst

from compilelint.rules.base import Rule
from compilelint.semantic.paths import dead_under_export


class ExportRule(Rule):
    family = "export"
    targets = ("export",)
    severity = "error"
    # torch's data-dependent errors (EX701-EX703; "non-nested SymInt": a number read from tensor data used as a
    # dict key); rules about other failures name theirs
    torch_error = ("GuardOnDataDependentSymNode", "DataDependentOutputException", "data-dependent",
                   "non-nested SymInt")

    def report(self, ctx, node: cst.CSTNode, message: str, owner: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        """Report at `node`; `owner` is the node being visited when `node` is part of it (an `if`'s test)."""
        if not dead_under_export(ctx, owner or node):
            ctx.report(node, message)


class ConditionExportRule(ExportRule):
    """An EX rule about the test of an `if` / `while` / conditional expression / `assert`: subclasses say in
    `check_condition` whether that test makes export guard on tensor data."""

    def check_condition(self, owner: cst.CSTNode, test: cst.BaseExpression, ctx, kw: str) -> None:  # noqa: ANN001
        raise NotImplementedError

    def visit_If(self, node: cst.If, ctx) -> None:  # noqa: ANN001
        self.check_condition(node, node.test, ctx, "`if`")

    def visit_While(self, node: cst.While, ctx) -> None:  # noqa: ANN001
        self.check_condition(node, node.test, ctx, "`while`")

    def visit_IfExp(self, node: cst.IfExp, ctx) -> None:  # noqa: ANN001
        self.check_condition(node, node.test, ctx, "`a if c else b`")

    def visit_Assert(self, node: cst.Assert, ctx) -> None:  # noqa: ANN001
        self.check_condition(node, node.test, ctx, "`assert`")
