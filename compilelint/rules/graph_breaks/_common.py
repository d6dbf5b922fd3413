"""What every GB rule shares: its detector's registration, escalation and reporting.

A GB rule's detector is its own `detect(node, ctx)` (a staticmethod: Dynamo's gb id when the node breaks the
graph, else None), with `call_gate` naming the calls it can look at and `loop_fix` saying how to take the
construct out of a loop. Defining the class registers the detector with the semantic model
(compilelint.semantic.breaks), which answers what needs every detector (GB410's break inside a loop, a branch
whose condition breaks). The severity escalates with the break's position (`break_severity`): inside a loop
Dynamo skips the whole frame (error), a break in a rarely taken branch or just before a plain `return` costs one
extra graph at most (note). Not a rule itself (no `code`), so the registry skips it.
"""

from __future__ import annotations

from typing import ClassVar

import libcst as cst

from compilelint.rules.base import Rule, brief
from compilelint.semantic.breaks import in_rare_branch, only_plain_returns_follow, register
from compilelint.semantic.paths import dead_under_dynamo

# Ends the message of a break inside a for/while loop: Dynamo then runs the whole function eagerly (GB7000, GB410).
LOOP_NOTE = " (loop: frame skipped)"


def break_severity(ctx, node: cst.CSTNode, default: str = "warning") -> str:  # noqa: ANN001
    """Escalation: a break inside a loop makes Dynamo skip the whole frame (error); a break in a branch only some
    inputs take, or in the last statement before a plain `return`, costs one extra graph at most (note);
    anything else: `default`."""
    if ctx.loop_depth > 0:
        return "error"
    if in_rare_branch(ctx, node) or only_plain_returns_follow(ctx):
        return "note"
    return default


class BreakRule(Rule):
    family = "graph-break"
    targets = ("dynamo",)
    severity = "warning"
    # How to take the construct out of a loop: the end of GB410's message when one sits inside a loop.
    loop_fix: ClassVar[str] = "remove the break"
    # The construct makes Python ask for a tensor's data (`.item()`, `int(t)`, `if t:`): semantic.breaks.
    # tensor_data_read asks the detectors that say so.
    reads_tensor_data: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs) -> None:  # noqa: ANN003
        super().__init_subclass__(**kwargs)
        if cls.code:
            register(cls, cls.detect, cls.loop_fix, cls.reads_tensor_data)

    @staticmethod
    def detect(node: cst.CSTNode, ctx) -> str | None:  # noqa: ANN001
        """Dynamo's gb id (torch 2.13) when `node` breaks the graph, else None: each GB rule defines its own."""
        raise NotImplementedError

    def fix_for(self, node: cst.CSTNode, ctx) -> tuple | None:  # noqa: ANN001
        """(old node, new node, description) for a mechanical fix, or None."""
        return None

    def message_for(self, node: cst.CSTNode, ctx, gb_id: str) -> str:  # noqa: ANN001
        return self.message

    def check(self, node: cst.CSTNode, ctx, report_at: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        gb_id = self.detect(node, ctx)
        if not gb_id or dead_under_dynamo(ctx, node):
            return
        severity = break_severity(ctx, node, self.severity)
        message = self.message_for(node, ctx, gb_id)
        if severity == "error":
            message = message.rstrip(". ") + LOOP_NOTE
        fix = self.fix_for(node, ctx)
        ctx.report(report_at or node, message, severity=severity, gb_id=gb_id,
                   fix=fix[:3] if fix else None, unsafe_fix=bool(fix and len(fix) > 3 and fix[3]))


class CallBreakRule(BreakRule):
    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)


class TextBreakRule(BreakRule):
    """A number Dynamo made symbolic, formatted into text (GB447, GB448): f-strings, `"..." % n`, `.format`,
    `str`/`repr`. The severity is the break's effect, not its position: `error` where Dynamo gives up on the
    whole frame (`skips_frame`), the usual escalation where it only breaks. `message` takes {code}, {subject}
    and {effect}."""

    skip_effect = 'Dynamo skips the whole function'
    break_effect = 'breaks the graph'

    def subject(self, node: cst.CSTNode, ctx) -> cst.BaseExpression | str:  # noqa: ANN001
        """What is formatted (a name or an expression): the message's {subject}."""
        raise NotImplementedError

    def skips_frame(self, node: cst.CSTNode, ctx, gb_id: str) -> bool:  # noqa: ANN001
        raise NotImplementedError

    def check(self, node: cst.CSTNode, ctx, report_at: cst.CSTNode | None = None) -> None:  # noqa: ANN001
        gb_id = self.detect(node, ctx)
        if not gb_id or dead_under_dynamo(ctx, node):
            return
        if self.skips_frame(node, ctx, gb_id):
            severity, effect = "error", self.skip_effect.format(gb=gb_id)
        else:  # a graph break: the usual escalation by position
            severity, effect = break_severity(ctx, node, "warning"), self.break_effect.format(gb=gb_id)
        subject = self.subject(node, ctx)
        subject = brief(subject if type(subject) is str else ctx.code_for(subject), 24)
        ctx.report(node, self.message.format(code=brief(ctx.code_for(node)), subject=subject, effect=effect),
                   severity=severity, gb_id=gb_id)

    def visit_FormattedString(self, node: cst.FormattedString, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)

    def visit_BinaryOperation(self, node: cst.BinaryOperation, ctx) -> None:  # noqa: ANN001
        if type(node.operator) is cst.Modulo:
            self.check(node, ctx)

    def visit_Call(self, node: cst.Call, ctx) -> None:  # noqa: ANN001
        self.check(node, ctx)


def statement_of(node: cst.CSTNode, ctx) -> cst.Expr | None:  # noqa: ANN001
    """The `Expr` statement that is exactly this call (`print(x)` on its own line), for removal fixes."""
    parent = ctx.parent
    if type(parent) is cst.Expr and parent.value is node:
        return parent
    return None


def remove_statement_fix(node: cst.CSTNode, ctx, description: str) -> tuple | None:  # noqa: ANN001
    stmt = statement_of(node, ctx)
    if stmt is None:
        return None
    return (stmt, cst.Pass(), description, True)  # unsafe: it changes what the program does
