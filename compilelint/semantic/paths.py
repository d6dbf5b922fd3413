"""Paths a compiler prunes: branches on values it holds constant while it compiles.

TorchScript compiles `if self.flag:` on a `torch.jit.Final` attribute (or one listed in `__constants__`) as a
constant: each module instance keeps one side only. Two statements on different sides of such a branch never
meet in one compiled function (their return types need not agree, for instance).

Dynamo, torch.export and torch.jit.trace run the Python code, and fold what they hold constant while they do:
`torch.compiler.is_compiling()`, `torch.compiler.is_exporting()`, `torch.jit.is_tracing()` (torchapi.modes, and a
library's wrapper named the same), short-circuit `and`/`or` on them, and flags `__init__` switches off for good.
`dead_under_dynamo`, `dead_under_export`, `dead_under_trace` and `off_flag_branch` say a node sits where that
compiler never goes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.torchapi.modes import IS_COMPILING, IS_EXPORTING, IS_TRACING

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext

_FINAL = {"torch.jit.Final", "typing.Final", "Final", "typing_extensions.Final", "torch.jit.annotations.Final"}


def script_constants(class_node: cst.ClassDef | None, aliases: dict[str, str]) -> frozenset[str]:
    """Attributes TorchScript holds constant in this class: `x: torch.jit.Final[bool]` in the class body, or
    names in a `__constants__` list or tuple."""
    if class_node is None:
        return frozenset()
    out: set[str] = set()
    for stmt in class_node.body.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                ann = small.annotation.annotation
                head = ann.value if type(ann) is cst.Subscript else ann
                if (qualify(head, aliases) or "") in _FINAL:
                    out.add(small.target.value)
            elif (type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name
                  and small.targets[0].target.value == "__constants__" and type(small.value) in (cst.List, cst.Tuple)):
                out.update(e.value.value[1:-1] for e in small.value.elements if type(e.value) is cst.SimpleString)
    return frozenset(out)


def _constant_test(test: cst.BaseExpression, constants: frozenset[str]) -> bool:
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _constant_test(test.expression, constants)
    return (type(test) is cst.Attribute and type(test.value) is cst.Name and test.value.value == "self"
            and test.attr.value in constants)


def script_constant_arms(ancestors: list[cst.CSTNode], node: cst.CSTNode,
                         constants: frozenset[str]) -> tuple[tuple[int, bool], ...]:
    """(id of the `if`, True for its body / False for its else) for each branch on a script constant that holds
    `node`, outermost first."""
    if not constants:
        return ()
    arms = []
    for i, anc in enumerate(ancestors):
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        block = getattr(anc, "body", None)
        if type(block) is cst.IndentedBlock:
            # after `if self.flag: ... return`, the rest of the block is the flag's other side
            for stmt in block.body:
                if stmt is nxt:
                    break
                if (type(stmt) is cst.If and stmt.orelse is None and _constant_test(stmt.test, constants)
                        and _leaves(stmt.body)):
                    arms.append((id(stmt), False))
        if type(anc) is not cst.If or not _constant_test(anc.test, constants):
            continue
        if nxt is anc.test:
            continue
        body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
        arms.append((id(anc), nxt is anc.body or any(nxt is s for s in body)))
    return tuple(arms)


def _leaves(block: cst.BaseSuite) -> bool:
    """The block ends in `return` or `raise`."""
    last = block.body[-1] if type(block) is cst.IndentedBlock and block.body else None
    return type(last) is cst.SimpleStatementLine and any(type(s) in (cst.Return, cst.Raise) for s in last.body)


def arms_meet(a: tuple[tuple[int, bool], ...], b: tuple[tuple[int, bool], ...]) -> bool:
    """Whether two statements can both be compiled for one instance: no constant branch puts them on
    different sides."""
    sides = dict(a)
    return all(sides.get(key, side) == side for key, side in b)


# -- code a compile mode never runs: `if not torch.compiler.is_compiling():` and switched-off flags ---------------

def _is_compiling_test(test: cst.BaseExpression, ctx: "RuleContext", names: set[str] = IS_COMPILING) -> bool | None:
    """The test's value while the compiler traces, where it is fixed: True for `is_compiling()` (a function of
    `names`), False for a switched-off flag (`self.debug`, ClassFacts.off_flags), negated under `not`; None
    for anything else."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _is_compiling_test(test.expression, ctx, names)
        return None if inner is None else not inner
    if type(test) is cst.Call and not test.args:
        called = ctx.qualify(test.func) or ""
        # torch's own check, or a library's wrapper of it named the same (`kornia.core.utils.is_compiling`,
        # `torchvision._is_tracing`): the compiler inlines the wrapper and folds it to the same constant
        if called in names or (called.rsplit(".", 1)[-1].lstrip("_") in _wrapper_names(names)
                               and not called.startswith("torch.")):
            return True
    if (names is IS_TRACING and type(test) is cst.Call and type(test.func) is cst.Name
            and test.func.value == "isinstance" and len(test.args) == 2
            and (ctx.qualify(test.args[1].value) or "") == "torch.Tensor"
            and ctx.facts.is_shape_dependent(test.args[0].value)):
        return True  # the tracer hands out sizes as 0-d tensors: `isinstance(h, torch.Tensor)` on a size
    if type(test) is cst.BooleanOperation:
        left, right = _is_compiling_test(test.left, ctx, names), _is_compiling_test(test.right, ctx, names)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else True if left is True and right is True else None
        return True if True in (left, right) else False if left is False and right is False else None
    if (type(test) is cst.Attribute and type(test.value) is cst.Name and test.value.value == "self"
            and ctx.class_facts is not None and test.attr.value in ctx.class_facts.off_flags):
        return False
    return None


def _wrapper_names(names: set[str] | frozenset[str]) -> frozenset[str]:
    cached = _WRAPPERS.get(id(names))
    if cached is None:
        cached = _WRAPPERS[id(names)] = frozenset(n.rsplit(".", 1)[-1].lstrip("_") for n in names)
    return cached


_WRAPPERS: dict[int, frozenset[str]] = {}


def dead_under_trace(ctx: "RuleContext", node: cst.CSTNode) -> bool:
    """In a branch torch.jit.trace never records: `if not torch.jit.is_tracing(): ...`, the else of the
    positive test, or under a switched-off flag (the tracer runs the Python code with the flag's value)."""
    return dead_under_dynamo(ctx, node, IS_TRACING)


def off_flag_branch(ctx: "RuleContext", node: cst.CSTNode) -> bool:
    """In a branch that a switched-off flag keeps torch.compile, jit.trace and export out of (`if self.debug:`
    with `self.debug = False` in `__init__` and nothing else setting it)."""
    return dead_under_dynamo(ctx, node, frozenset())


def dead_under_export(ctx: "RuleContext", node: cst.CSTNode) -> bool:
    """In a branch torch.export (non-strict) never runs: `if not torch.compiler.is_exporting(): ...`,
    `if not torch.compiler.is_compiling(): ...`, the else of the positive test, or under a switched-off flag."""
    return dead_under_dynamo(ctx, node, IS_EXPORTING)


def dead_under_dynamo(ctx: "RuleContext", node: cst.CSTNode, names: set[str] = IS_COMPILING) -> bool:
    """In a branch Dynamo never traces: `if not torch.compiler.is_compiling(): ...` (or the else of
    `if torch.compiler.is_compiling():`): is_compiling() is a constant True while Dynamo traces; or under a
    switched-off flag (`if self.debug:`), whose value Dynamo specializes on."""
    ancestors = ctx.ancestors
    for i, anc in enumerate(ancestors):
        if type(anc) is cst.BooleanOperation:
            # `not is_compiling() and t.is_pinned()`: the right side never runs where the left decides
            nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
            if nxt is anc.right:
                left = _is_compiling_test(anc.left, ctx, names)
                if left is (type(anc.operator) is cst.Or):
                    return True
            continue
        if type(anc) not in (cst.If, cst.IfExp):
            continue
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if nxt is anc.test:
            continue
        compiling = _is_compiling_test(anc.test, ctx, names)
        if compiling is None:
            continue
        body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
        # A statement is dispatched before it is pushed on the ancestors: a rule's visit_If/visit_For reporting
        # at its own test or iterable names a node one level below the statement in this branch.
        in_body = nxt is anc.body or any(nxt is s or (nxt is node and _is_part_of(node, s)) for s in body)
        if compiling is False and in_body:
            return True
        if compiling is True and not in_body:
            return True
    return False


def _is_part_of(node: cst.CSTNode, stmt: cst.CSTNode) -> bool:
    """`node` is a compound statement's own header part (its test, iterable, target or items)."""
    return any(getattr(stmt, part, None) is node for part in ("test", "iter", "target", "items"))


def built_only_on_failure(node: cst.CSTNode, ctx: "RuleContext") -> bool:
    """Inside a `raise` or a lambda, or the message of an `assert` statement: Python builds it only when the check fails
    (verified on 2.13: no recompile from either). A message passed to `torch._assert(cond, f"...")` is built on
    every call, like any argument (four recompiles over five sizes)."""
    ancestors = list(ctx.ancestors)
    for a in ancestors:
        if type(a) in (cst.Raise, cst.Lambda):  # a lambda's body (torch._check's message) runs later, if ever
            return True
        if type(a) is cst.Assert and a.msg is not None and (a.msg is node or any(x is a.msg for x in ancestors)):
            return True
    return False


def _default_off(test: cst.BaseExpression, function: cst.FunctionDef | None, default_off: set[str]) -> bool:
    """A flag that is off unless the user switches it on: `self.use_tiling` (ClassFacts.default_off), or a
    parameter of the function that defaults to False or None (`antialias: bool = False`)."""
    if type(test) is cst.Attribute:
        return type(test.value) is cst.Name and test.value.value == "self" and test.attr.value in default_off
    if type(test) is cst.Name and function is not None:
        params = function.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            if p.name.value == test.value:
                return type(p.default) is cst.Name and p.default.value in ("False", "None")
    return False


def behind_default_off_flag(ancestors: list[cst.CSTNode], node: cst.CSTNode, function: cst.FunctionDef | None,
                            default_off: set[str]) -> bool:
    """`node` runs only when an off-by-default flag is on: the right side of `flag and ...`, or the body of
    `if flag:`. With the default configuration a tracer never reaches it."""
    for i, anc in enumerate(ancestors):
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if type(anc) is cst.BooleanOperation and type(anc.operator) is cst.And and nxt is anc.right:
            if _default_off(anc.left, function, default_off):
                return True
        elif type(anc) is cst.If and nxt is not anc.test and _default_off(anc.test, function, default_off):
            body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
            # a statement is dispatched before it is pushed on the ancestors: an inner `if`'s own test
            if nxt is anc.body or any(nxt is s or (nxt is node and getattr(s, "test", None) is node) for s in body):
                return True
    return False


def operands_run_by_default(test: cst.BaseExpression, function: cst.FunctionDef | None,
                            default_off: set[str]) -> list[cst.BaseExpression]:
    """The operands of a condition (through `and`/`or`/`not`) that run with the default configuration: not the
    right side of `flag and ...` for an off-by-default flag."""
    out: list[cst.BaseExpression] = []
    parts = [test]
    while parts:
        part = parts.pop()
        if type(part) is cst.BooleanOperation:
            if type(part.operator) is cst.And and _default_off(part.left, function, default_off):
                parts.append(part.left)
            else:
                parts += [part.left, part.right]
        elif type(part) is cst.UnaryOperation and type(part.operator) is cst.Not:
            parts.append(part.expression)
        elif not _default_off(part, function, default_off):  # off by default, the flag itself reads nothing
            out.append(part)
    return out


def only_raises(node: cst.CSTNode) -> bool:
    """`if x.size(0) != y.size(0): raise ValueError(...)` (elif/else and nested ifs that only raise or warn too):
    input validation, not a second code path for valid inputs."""
    if type(node) is cst.If:
        return only_raises(node.body) and (node.orelse is None or only_raises(node.orelse))
    if type(node) is cst.Else:
        return only_raises(node.body)
    body = node.body if type(node) is cst.IndentedBlock else ()
    if not body:
        return False
    for stmt in body:
        if type(stmt) is cst.If:
            if not only_raises(stmt):
                return False
        elif type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Raise:
                    continue
                if (type(small) is cst.Expr and type(small.value) is cst.Call
                        and type(small.value.func) is cst.Attribute
                        and small.value.func.attr.value in ("warn", "warning", "error", "info", "debug")):
                    continue
                return False
        else:
            return False
    return True


def traced_size_operand(test: cst.BaseExpression, facts, function: cst.FunctionDef | None,  # noqa: ANN001
                        ) -> cst.BaseExpression | None:
    """The operand of a condition through which torch.jit.trace reads a tensor size as a Python bool (TracerWarning
    at the condition), or None: not a size (rank checks, Python values), tensor data (a value branch), a size of
    a data-dependent shape, a type dispatch (`isinstance(x, tuple) and len(x) == 2`), or behind a flag that is
    off by default."""
    if facts.is_value_dependent(test) or facts.reads_dynamic_size(test):
        return None
    stack = [test]
    while stack:  # a type dispatch anywhere in the condition: its operands are no tensors
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "isinstance":
            return None
        if type(node) in (cst.BooleanOperation, cst.UnaryOperation, cst.Comparison):
            stack.extend(n for n in (getattr(node, "left", None), getattr(node, "right", None),
                                     getattr(node, "expression", None)) if n is not None)
    default_off = getattr(facts.class_facts, "default_off", set())
    for part in operands_run_by_default(_traced_side(test, facts.aliases), function, default_off):
        if facts.is_shape_dependent(part) and facts.reads_tensor_size(part):
            return part
    return None


def _traced_side(test: cst.BaseExpression, aliases: dict[str, str]) -> cst.BaseExpression:
    """What of an `and`/`or` chain runs while tracing: `not torch.jit.is_tracing() and ...` stops at its left."""
    if type(test) is not cst.BooleanOperation:
        return test
    left = _traced_side(test.left, aliases)
    value = _tracing_value(left, aliases)
    if value is not None and value is (type(test.operator) is cst.Or):
        return left  # `False and ...` / `True or ...`: the right side never runs
    return cst.BooleanOperation(left=left, operator=test.operator, right=test.right)


def _tracing_value(test: cst.BaseExpression, aliases: dict[str, str]) -> bool | None:
    """True for `torch.jit.is_tracing()`, False for its negation, under torch.jit.trace; None otherwise."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        inner = _tracing_value(test.expression, aliases)
        return None if inner is None else not inner
    if type(test) is cst.Call and not test.args and (qualify(test.func, aliases) or "") in IS_TRACING:
        return True
    if type(test) is cst.BooleanOperation:
        left, right = _tracing_value(test.left, aliases), _tracing_value(test.right, aliases)
        if type(test.operator) is cst.And:
            return False if False in (left, right) else None
        return True if True in (left, right) else None
    return None


def _is_training(test: cst.BaseExpression) -> bool:
    return (type(test) is cst.Attribute and type(test.value) is cst.Name and test.value.value == "self"
            and test.attr.value == "training")


def on_training_path(ancestors: list[cst.CSTNode], node: cst.CSTNode) -> bool:
    """`node` runs only in training mode: the body of `if self.training:` (or of `if self.training and ...:`), the
    else of `if not self.training:`, or the right side of `self.training and ...`."""
    for i, anc in enumerate(ancestors):
        nxt = ancestors[i + 1] if i + 1 < len(ancestors) else node
        if type(anc) is cst.BooleanOperation and type(anc.operator) is cst.And and nxt is anc.right:
            if _is_training(anc.left):
                return True
        elif type(anc) is cst.If and nxt is not anc.test:
            test = anc.test
            positive = _is_training(test) or (type(test) is cst.BooleanOperation and type(test.operator) is cst.And
                                              and (_is_training(test.left) or _is_training(test.right)))
            negative = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not and _is_training(
                test.expression)
            if not (positive or negative):
                continue
            body = anc.body.body if type(anc.body) is cst.IndentedBlock else ()
            in_body = nxt is anc.body or any(nxt is s or (nxt is node and getattr(s, "test", None) is node)
                                             for s in body)
            if (positive and in_body) or (negative and not in_body and anc.orelse is not None):
                return True
    return False
