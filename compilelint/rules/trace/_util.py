"""Small helpers shared by the trace rules (where a node sits; no tensor facts here: those live in
compilelint/analysis/tensors.py)."""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.nodes import child_nodes, concrete_types

_TESTED = frozenset((cst.If, cst.While, cst.IfExp, cst.Assert))
_STATEMENTS = concrete_types(cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.BaseSmallStatement)
_SMALL_STATEMENTS = concrete_types(cst.BaseSmallStatement)


def in_condition(ctx) -> bool:  # noqa: ANN001
    """True when the node being visited sits inside the test of an if/while/ternary/assert (those
    rules report it), not in its body."""
    anc = ctx.ancestors
    for i in range(len(anc) - 1, -1, -1):
        node = anc[i]
        node_type = type(node)
        if node_type in _TESTED:
            if node_type is cst.IfExp:
                nxt = anc[i + 1] if i + 1 < len(anc) else None
                return nxt is None or nxt is node.test or _contains(node.test, nxt)
            if node_type is cst.Assert:
                return True
            nxt = anc[i + 1] if i + 1 < len(anc) else None
            return nxt is None or type(nxt) not in _STATEMENTS
        if node_type in _STATEMENTS and node_type not in _SMALL_STATEMENTS:
            if node_type not in (cst.If, cst.While):
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
