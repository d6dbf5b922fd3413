"""What breaks Dynamo's graph at a node, and where a break costs little.

Each GB rule owns the detector of its construct (`detect(node, ctx) -> Dynamo's gb id or None`, in its own
file) and registers it here when its class is defined (rules/graph_breaks/_common.BreakRule); importing the rules
(compilelint.rules.registry) registers every one, in the order of their files. The queries that need every
detector read this registry, never a rule: `first_break` (GB410: a break inside a loop makes Dynamo skip the
whole frame), `in_rare_branch` (a condition that breaks itself makes its body a rare path), and
`tensor_data_read` (the detectors of constructs where Python asks for a tensor's data). Nothing here is keyed by
a rule's code or name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

import libcst as cst

from compilelint.analysis.nodes import source_children
from compilelint.analysis.tensors import Kind
from compilelint.semantic.frames import is_parameter
from compilelint.semantic.paths import dead_under_dynamo

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

Detector = Callable[[cst.CSTNode, "RuleContext"], "str | None"]


class BreakDetector(NamedTuple):
    detect: Detector
    # How to take the construct out of a loop, for the message about a break inside one ("keep the value as a
    # tensor").
    loop_fix: str
    # The construct makes Python ask for a tensor's data (`.item()`, `.tolist()`, `int(t)`, `if t:`).
    reads_tensor_data: bool


_REGISTERED: dict[str, BreakDetector] = {}  # by the owner's dotted path: a reloaded module replaces its entry
_ALL: tuple[BreakDetector, ...] = ()
_DATA_READS: tuple[Detector, ...] = ()


def register(owner: type, detect: Detector, loop_fix: str, reads_tensor_data: bool = False) -> None:
    """Record `owner`'s detector (a GB rule class registers its own when it is defined)."""
    global _ALL, _DATA_READS
    _REGISTERED[f"{owner.__module__}.{owner.__qualname__}"] = BreakDetector(detect, loop_fix, reads_tensor_data)
    _ALL = tuple(_REGISTERED.values())
    _DATA_READS = tuple(d.detect for d in _ALL if d.reads_tensor_data)


def detectors() -> tuple[BreakDetector, ...]:
    return _ALL


def first_break(node: cst.CSTNode, ctx: "RuleContext") -> tuple[str, str] | None:
    """(gb id, how to take it out of a loop) of the first registered detector that says `node` breaks the graph."""
    for detector in _ALL:
        gb_id = detector.detect(node, ctx)
        if gb_id:
            return gb_id, detector.loop_fix
    return None


def tensor_data_read(node: cst.CSTNode, ctx: "RuleContext") -> str | None:
    """The gb id when `node` makes Python ask for a tensor's data and Dynamo breaks there (`.item()` GB0124,
    `.tolist()` GB0109, `int(t)` GB0124, a branch on a tensor GB0170), else None."""
    for detect in _DATA_READS:
        gb_id = detect(node, ctx)
        if gb_id:
            return gb_id
    return None


def condition_reads_tensor(test: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A condition that needs a tensor's data as a Python bool (`if t`, `if any(t)`,
    `if all(iou(a, b) < t for b in kept)`): Dynamo breaks there (GB0170), export fails on fake tensors."""
    if type(test) is cst.BooleanOperation:
        return condition_reads_tensor(test.left, ctx) or condition_reads_tensor(test.right, ctx)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return condition_reads_tensor(test.expression, ctx)
    if is_parameter(test, ctx):
        return False  # `if flag:` on an unannotated parameter: almost always a Python flag
    if type(test) is cst.Call and type(test.func) is cst.Name and test.func.value in ("any", "all") \
            and len(test.args) == 1:
        arg = test.args[0].value
        if ctx.facts.is_tensor(arg):
            return True
        if type(arg) in (cst.GeneratorExp, cst.ListComp) and type(arg.elt) is cst.Comparison \
                and ctx.facts.kind(arg.elt) is Kind.TENSOR:
            return True  # all(iou(a, b) < t for b in kept): each element is bool(tensor)
    return ctx.facts.kind(test) is Kind.TENSOR


def in_rare_branch(ctx: "RuleContext", node: cst.CSTNode) -> bool:
    """Inside the body of an `if` that only some inputs take: a condition on shapes (Dynamo traces the
    branch only for inputs that take it), on tensor data (itself a break), or an error path (`raise`)."""
    ancestors = ctx.ancestors
    for i, anc in enumerate(ancestors):
        if type(anc) is not cst.If:
            continue
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if nxt is anc.test:
            continue  # the condition itself, not the branch
        if ctx.facts.kind(anc.test) in (Kind.SIZE, Kind.SHAPE, Kind.TENSOR, Kind.VALUE):
            return True
        if first_break(anc.test, ctx) is not None:
            return True  # `if os.path.exists(p):` - the condition itself breaks; the body runs only sometimes
        body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
        last = body[-1] if body else None
        if type(last) is cst.SimpleStatementLine and any(type(s) is cst.Raise for s in last.body):
            return True
    return False


def only_plain_returns_follow(ctx: "RuleContext") -> bool:
    """The statement of the function body that holds the current node is followed only by plain `return`s
    (`return x`, `return a, b`, `return`): a break there costs one extra graph at most."""
    fn = ctx.function
    if fn is None or type(fn.body) is not cst.IndentedBlock:
        return False
    body = list(fn.body.body)
    top = next((a for a in ctx.ancestors if any(a is s for s in body)), None)
    if top is None:
        return False
    rest = body[body.index(top) + 1:]
    return bool(rest) and all(_plain_return(s) for s in rest)


def _plain_return(stmt: cst.CSTNode) -> bool:
    if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Return):
        return False
    value = stmt.body[0].value
    if value is None or type(value) is cst.Name:
        return True
    return type(value) is cst.Tuple and all(type(e.value) is cst.Name for e in value.elements)


def breaks_in_arguments(call: cst.Call, ctx: "RuleContext") -> list[cst.CSTNode]:
    """The nodes in `call`'s arguments where a registered detector says the graph breaks, in source order (a
    breaking node's own subtree is not searched again; lambdas are not run there)."""
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [a.value for a in reversed(call.args)]
    while stack:
        node = stack.pop()
        if type(node) is cst.Lambda:
            continue
        if first_break(node, ctx) is not None:
            found.append(node)
            continue
        stack.extend(reversed(node.children))
    return found


_BREAK_SITES = (cst.Call, cst.Subscript, cst.If, cst.IfExp)
_NOT_RUN_HERE = (cst.FunctionDef, cst.Lambda, cst.ClassDef)  # nested code: frames (or no code) of their own


def _loop_breaks(ctx: "RuleContext", root: cst.CSTNode) -> bool:
    """Whether a graph break sits inside a for/while body of one function (not its nested functions, lambdas,
    a while's condition, or comprehensions, which Dynamo inlines). One source-order walk over
    `analysis.nodes.source_children` (a LibCST visitor would rebuild every node it passes); `stack` holds the
    path from the function to the node, which is what `dead_under_dynamo` reads as the node's ancestors."""
    stack: list[cst.CSTNode] = [ctx.function] if ctx.function is not None else []

    def walk(node: cst.CSTNode, depth: int) -> bool:
        node_type = type(node)
        if depth and node_type in _BREAK_SITES and first_break(node, ctx) is not None:
            walked, ctx.ancestors = ctx.ancestors, list(stack)  # the node's own, for the question
            try:
                if not dead_under_dynamo(ctx, node):
                    return True
            finally:
                ctx.ancestors = walked
        if node_type in _NOT_RUN_HERE:
            return False
        stack.append(node)
        try:
            if node_type is cst.For or node_type is cst.While:
                # the loop's head runs once, its body inside the loop, its `else` once after it
                if walk(node.iter if node_type is cst.For else node.test, depth):
                    return True
                if walk(node.body, depth + 1):
                    return True
                return node.orelse is not None and walk(node.orelse, depth)
            for child in source_children(node):
                if walk(child, depth):
                    return True
            return False
        finally:
            stack.pop()

    return walk(root, 0)


def skipped_whole(ctx: "RuleContext") -> bool:
    """Dynamo skips the function being walked whole: a graph break sits inside one of its loops (GB7000; it
    cannot resume in a loop), so it runs eagerly, has no guards and never recompiles (its callees are frames of
    their own). Worked out once per function, from the facts known when first asked."""
    fn = ctx.function
    if fn is None:
        return False
    cache = ctx.__dict__.setdefault("_skipped_whole", {})
    if id(fn) not in cache:
        cache[id(fn)] = (fn, _loop_breaks(ctx, fn.body))
    return cache[id(fn)][1]
