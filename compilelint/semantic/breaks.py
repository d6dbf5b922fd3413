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


class _LoopBreaks(cst.CSTVisitor):
    """Whether a graph break sits inside a for/while body of one function (not its nested functions, lambdas,
    a while's condition, or comprehensions, which Dynamo inlines)."""

    def __init__(self, ctx: "RuleContext") -> None:
        self.ctx = ctx
        self.depth = 0
        self.found = False
        self.stack: list[cst.CSTNode] = [ctx.function] if ctx.function is not None else []

    def visit_FunctionDef(self, _node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, _node: cst.Lambda) -> bool:
        return False

    def visit_ClassDef(self, _node: cst.ClassDef) -> bool:
        return False

    def _loop(self, head: cst.CSTNode, node: cst.For | cst.While) -> bool:
        """The loop's head runs once, its body inside the loop, its `else` once after it."""
        head.visit(self)
        self.depth += 1
        node.body.visit(self)
        self.depth -= 1
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_For(self, node: cst.For) -> bool:
        return self._loop(node.iter, node)

    def visit_While(self, node: cst.While) -> bool:
        return self._loop(node.test, node)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.found:
            return False
        if self.depth and type(node) in (cst.Call, cst.Subscript, cst.If, cst.IfExp) \
                and first_break(node, self.ctx) is not None:
            walked, self.ctx.ancestors = self.ctx.ancestors, list(self.stack)  # the node's own, for the question
            try:
                self.found = not dead_under_dynamo(self.ctx, node)
            finally:
                self.ctx.ancestors = walked
            if self.found:
                return False
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.stack and self.stack[-1] is original_node:
            self.stack.pop()
        super().on_leave(original_node)


def skipped_whole(ctx: "RuleContext") -> bool:
    """Dynamo skips the function being walked whole: a graph break sits inside one of its loops (GB7000; it
    cannot resume in a loop), so it runs eagerly, has no guards and never recompiles (its callees are frames of
    their own). Worked out once per function, from the facts known when first asked."""
    fn = ctx.function
    if fn is None:
        return False
    cache = ctx.__dict__.setdefault("_skipped_whole", {})
    if id(fn) not in cache:
        visitor = _LoopBreaks(ctx)
        fn.body.visit(visitor)
        cache[id(fn)] = (fn, visitor.found)
    return cache[id(fn)][1]
