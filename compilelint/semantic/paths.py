"""Paths a compiler prunes: branches on values it holds constant while it compiles.

TorchScript compiles `if self.flag:` on a `torch.jit.Final` attribute (or one listed in `__constants__`) as a
constant: each module instance keeps one side only. Two statements on different sides of such a branch never
meet in one compiled function (their return types need not agree, for instance).
"""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.dynamo import _IS_TRACING as IS_TRACING
from compilelint.analysis.names import qualify

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
