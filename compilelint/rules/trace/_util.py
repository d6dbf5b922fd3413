"""Small helpers shared by the trace rules (where a node sits; no tensor facts here: those live in
compilelint/analysis/tensors.py)."""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.nodes import child_nodes

_TESTED = (cst.If, cst.While, cst.IfExp, cst.Assert)
_STATEMENTS = (cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.BaseSmallStatement)


def in_condition(ctx) -> bool:  # noqa: ANN001
    """True when the node being visited sits inside the test of an if/while/ternary/assert (those
    rules report it), not in its body."""
    anc = ctx.ancestors
    for i in range(len(anc) - 1, -1, -1):
        node = anc[i]
        if isinstance(node, _TESTED):
            if type(node) is cst.IfExp:
                nxt = anc[i + 1] if i + 1 < len(anc) else None
                return nxt is None or nxt is node.test or _contains(node.test, nxt)
            if type(node) is cst.Assert:
                return True
            nxt = anc[i + 1] if i + 1 < len(anc) else None
            return nxt is None or not isinstance(nxt, _STATEMENTS)
        if isinstance(node, _STATEMENTS) and not isinstance(node, cst.BaseSmallStatement):
            if type(node) not in (cst.If, cst.While):
                return False
    return False


def _contains(tree: cst.CSTNode, node: cst.CSTNode) -> bool:
    stack = [tree]
    while stack:
        cur = stack.pop()
        if cur is node:
            return True
        stack.extend(child_nodes(cur))
    return False


def in_forward_like(ctx) -> bool:  # noqa: ANN001
    """Inside a function body (the engine keeps only what a compile path reaches)."""
    return ctx.function is not None
