"""Types as `torch.jit.script` sees them: what an annotation means to TorchScript, what a module attribute
holds when `__init__` sets it, and where TorchScript refines a value's type (torch 2.13)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import dotted, qualify, without_none
from compilelint.analysis.nodes import child_nodes, iter_nodes
from compilelint.analysis.reach import argument_literal
from compilelint.analysis.pytypes import is_rebound, literal_scalar_type, refined_names, walk
from compilelint.analysis.script_support import dead_when_scripting, mentions_is_scripting
from compilelint.analysis.tensors import Kind
from compilelint.semantic.annotations import optional_annotation

if TYPE_CHECKING:
    from compilelint.analysis.index import ClassBuild
    from compilelint.analyzer import RuleContext

_TUPLE_NAMES = {"typing.Tuple", "tuple", "builtins.tuple"}


def isinstance_tested(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function` tests `isinstance(name, ...)`: TorchScript refines the local (an `Any` included) to
    that type inside the branch, so its uses there are typed."""
    for node, _ in walk(function.body, (function,)):
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "isinstance" \
                and node.args and type(node.args[0].value) is cst.Name and node.args[0].value.value == name:
            return True
    return False


def is_tuple_annotation(annotation: cst.BaseExpression | None, aliases: dict[str, str]) -> bool:
    """`Tuple[...]` / `tuple[...]`: a value of fixed length, which TorchScript can unroll a loop over."""
    if annotation is None:
        return False
    if type(annotation) is cst.Subscript:
        annotation = annotation.value
    return (qualify(annotation, aliases) or "") in _TUPLE_NAMES


def _init_of(class_node: cst.ClassDef | None) -> cst.FunctionDef | None:
    if class_node is None or type(class_node.body) is not cst.IndentedBlock:
        return None
    return next((s for s in class_node.body.body if type(s) is cst.FunctionDef and s.name.value == "__init__"), None)


def tuple_attributes(ctx: "RuleContext") -> set[str]:
    """`self.<attr>`s that `__init__` sets only to a tuple: a tuple literal, or one of its parameters annotated
    `Tuple[...]`. TorchScript stores such an attribute as a tuple constant of known length (once per class)."""
    cache = ctx.__dict__.setdefault("_tuple_attrs", {})
    key = id(ctx.class_node)
    if key in cache:
        return cache[key]
    init = _init_of(ctx.class_node)
    found: dict[str, bool] = {}
    if init is not None:
        aliases = ctx.facts.aliases
        tuple_params = {p.name.value for p in [*init.params.params, *init.params.kwonly_params]
                        if p.annotation is not None and is_tuple_annotation(p.annotation.annotation, aliases)}
        for node, _ in walk(init.body, (init,)):
            if type(node) is not cst.Assign:
                continue
            for target in node.targets:
                t = target.target
                if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                    value = node.value
                    is_tuple = type(value) is cst.Tuple or (type(value) is cst.Name and value.value in tuple_params)
                    found[t.attr.value] = found.get(t.attr.value, True) and is_tuple
    cache[key] = {name for name, ok in found.items() if ok}
    return cache[key]


def has_static_length(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A tuple TorchScript knows the length of: a tuple literal or a tuple attribute (`tuple_attributes`)."""
    if type(expr) is cst.Tuple:
        return True
    return (type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"
            and expr.attr.value in tuple_attributes(ctx))


def ancestors_of(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from `root` down to `target` (both included), or None when `target` is not under `root`."""
    stack: list[tuple[cst.CSTNode, list[cst.CSTNode]]] = [(root, [root])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in child_nodes(node):
            stack.append((child, [*path, child]))
    return None


def compiled_by_script(function: cst.FunctionDef, node: cst.CSTNode) -> bool:
    """False where `node` sits in a branch TorchScript skips (`if not torch.jit.is_scripting():`)."""
    if not mentions_is_scripting(function):
        return True
    path = ancestors_of(function, node)
    # the analyzer's stack holds statements and expressions, not the blocks between them, as dead_when_scripting expects
    return path is None or not dead_when_scripting([n for n in path if type(n) is not cst.IndentedBlock], function)


def scalar_type(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """"int", "float", "bool" or "str" where TorchScript types `expr` so for certain: a literal, a parameter of the
    function annotated so, or a `self.<attr>` that `__init__` sets to a literal (TorchScript infers an
    attribute's type from its value)."""
    found = literal_scalar_type(expr)
    if found is not None:
        return found
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
        literal = ctx.class_facts.literal_types.get(expr.attr.value) if ctx.class_facts is not None else None
        return literal if literal in ("int", "float", "bool", "str") else None
    if type(expr) is cst.Name and ctx.function is not None and not is_rebound(ctx.function, expr.value):
        params = ctx.function.params
        for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
            if p.name.value == expr.value and p.annotation is not None:
                annotation = p.annotation.annotation
                if type(annotation) is cst.Name and annotation.value in ("int", "float", "bool", "str"):
                    return annotation.value
    return None


def is_number(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """Whether TorchScript types `expr` as a Python number (int, float, bool or `number`), never a Tensor: a scalar
    by `scalar_type`, a size read from a tensor (`x.shape[0]`, `x.size(1)`, `len(x)`), `t.item()`, and arithmetic
    of those (`h * w`, `n - 1`)."""
    if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
        return is_number(expr.expression, ctx)
    if type(expr) is cst.BinaryOperation:
        return is_number(expr.left, ctx) and is_number(expr.right, ctx)
    if scalar_type(expr, ctx) in ("int", "float", "bool"):
        return True
    facts = ctx.facts  # the TorchScript view for the TorchScript rules
    return facts.kind(expr) is Kind.SIZE or facts.is_script_number(expr)


def unrefined_optional_param(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """A parameter annotated `Optional[...]` that the function never tests (`is None`, `isinstance`, a truth
    value, an assert) nor rebinds: TorchScript still types it Optional where it is used."""
    function = ctx.function
    if type(expr) is not cst.Name or function is None:
        return False
    params = function.params
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if p.name.value == expr.value and p.annotation is not None:
            return (optional_annotation(p.annotation.annotation, ctx.facts.aliases)
                    and not assigned(function, expr.value) and expr.value not in refined_names(function))
    return False


def assigned(function: cst.FunctionDef, name: str) -> bool:
    """Whether the body binds `name` (an assignment, augmented or annotated, a loop or `with` target), unpacking
    targets included; a list or tuple that is only read does not count."""
    for node, _ in walk(function.body, (function,)):
        targets: list[cst.CSTNode] = []
        if type(node) is cst.Assign:
            targets = [t.target for t in node.targets]
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor):
            targets = [node.target]
        elif type(node) is cst.AsName:
            targets = [node.name]
        for target in targets:
            if any(type(n) is cst.Name and n.value == name for n in iter_nodes(target)):
                return True
    return False


def none_tested(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function` compares `name` with `is` / `is not` or tests it with `isinstance`: past such a test
    TorchScript refines an Optional local to its inner type."""
    for node, _ in walk(function.body, (function,)):
        if type(node) is cst.Comparison and any(type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons):
            operands = [node.left, *(c.comparator for c in node.comparisons)]
            if any(type(o) is cst.Name and o.value == name for o in operands):
                return True
        elif type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "isinstance" \
                and node.args and type(node.args[0].value) is cst.Name and node.args[0].value.value == name:
            return True
    return False


def optional_param(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """The annotation's text when `expr` is a parameter annotated `Optional[...]` that the function neither
    rebinds nor ever tests for None: TorchScript types it Optional wherever it is used."""
    function = ctx.function
    if type(expr) is not cst.Name or function is None:
        return None
    params = function.params
    for p in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if p.name.value == expr.value and p.annotation is not None:
            if optional_annotation(p.annotation.annotation, ctx.facts.aliases) and not assigned(function, expr.value) \
                    and not none_tested(function, expr.value):
                return ctx.code_for(p.annotation.annotation)
            return None
    return None


_UNKNOWN = object()


def _literal(expr: cst.BaseExpression | None) -> object:
    if expr is None:
        return _UNKNOWN
    if type(expr) is cst.Name and expr.value in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[expr.value]
    if type(expr) is cst.Integer:
        return int(expr.value, 0) if expr.value.isdigit() else _UNKNOWN
    if type(expr) in (cst.SimpleString,):
        return expr.evaluated_value
    return _UNKNOWN


class _DefaultInit:
    """`__init__` walked as it runs when every parameter keeps its default: which `self.<attr>`s end up None,
    which are never set, which are set; a branch whose condition the defaults do not decide leaves "unknown"."""

    def __init__(self, init: cst.FunctionDef, unknown: str | None = None) -> None:
        params = init.params
        self.values: dict[str, object] = {p.name.value: _literal(p.default)
                                          for p in [*params.params, *params.kwonly_params]}
        if unknown is not None:  # that parameter passed a value the walk does not know
            self.values[unknown] = _UNKNOWN
        self.state: dict[str, str] = {}
        self.assigned: set[str] = set()
        self._block(init.body, taken=True)

    def truth(self, test: cst.BaseExpression) -> object:
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            inner = self.truth(test.expression)
            return _UNKNOWN if inner is _UNKNOWN else not inner
        if type(test) is cst.Comparison and len(test.comparisons) == 1 and \
                type(test.comparisons[0].operator) in (cst.Is, cst.IsNot) and \
                type(test.comparisons[0].comparator) is cst.Name and test.comparisons[0].comparator.value == "None":
            value = self.value(test.left)
            if value is _UNKNOWN:
                return _UNKNOWN
            return (value is None) == (type(test.comparisons[0].operator) is cst.Is)
        value = self.value(test)
        return _UNKNOWN if value is _UNKNOWN else bool(value)

    def value(self, expr: cst.BaseExpression) -> object:
        if type(expr) is cst.Name and expr.value in self.values:
            return self.values[expr.value]
        if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self":
            return self.values.get(f"self.{expr.attr.value}", _UNKNOWN)
        return _literal(expr)

    def _set(self, attr: str, what: str, taken: bool) -> None:
        self.assigned.add(attr)
        if taken:
            self.state[attr] = what
        elif self.state.get(attr) != what:
            self.state[attr] = "unknown" if attr in self.state or what != "missing" else what

    def _block(self, block: cst.BaseSuite, taken: bool) -> None:
        body = block.body if type(block) is cst.IndentedBlock else [block]
        for stmt in body:
            self._statement(stmt, taken)

    def _statement(self, stmt: cst.CSTNode, taken: bool) -> None:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                registered = _registered_name(small)
                if registered is not None:
                    self._set(registered, "set", taken)
                elif type(small) is cst.Assign:
                    for target in small.targets:
                        t = target.target
                        if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                            self._assign(t.attr.value, small.value, taken)
                        elif type(t) is cst.Name and taken:
                            self.values[t.value] = self.value(small.value)
            return
        if type(stmt) is cst.If:
            decided = self.truth(stmt.test) if taken else _UNKNOWN
            if decided is _UNKNOWN:
                self._block(stmt.body, False)
                if stmt.orelse is not None:
                    self._statement(stmt.orelse, False) if type(stmt.orelse) is cst.If else \
                        self._block(stmt.orelse.body, False)
                return
            if decided:
                self._block(stmt.body, taken)
                branch_not = stmt.orelse
            else:
                if stmt.orelse is not None:
                    self._statement(stmt.orelse, taken) if type(stmt.orelse) is cst.If else \
                        self._block(stmt.orelse.body, taken)
                branch_not = stmt.body
            self._skipped(branch_not)
            return
        for name in ("body", "orelse", "finalbody"):
            part = getattr(stmt, name, None)
            if isinstance(part, cst.BaseSuite):
                self._block(part, False)  # loops, with, try: not followed as certain
            elif part is not None and hasattr(part, "body") and isinstance(part.body, cst.BaseSuite):
                self._block(part.body, False)
        for handler in getattr(stmt, "handlers", ()):
            self._block(handler.body, False)

    def _skipped(self, branch: cst.CSTNode | None) -> None:
        """A branch the defaults do not take: its attributes stay as they are (missing, if nothing else sets them)."""
        if branch is None:
            return
        for node in iter_nodes(branch):
            registered = _registered_name(node) if type(node) is cst.Expr else None
            if registered is not None:
                self.assigned.add(registered)
                self.state.setdefault(registered, "missing")
            elif type(node) is cst.AssignTarget and type(node.target) is cst.Attribute and \
                    type(node.target.value) is cst.Name and node.target.value.value == "self":
                attr = node.target.attr.value
                self.assigned.add(attr)
                self.state.setdefault(attr, "missing")

    def _assign(self, attr: str, value: cst.BaseExpression, taken: bool) -> None:
        if type(value) is cst.IfExp:
            decided = self.truth(value.test) if taken else _UNKNOWN
            if decided is _UNKNOWN:
                self._set(attr, "unknown", taken)
                return
            value = value.body if decided else value.orelse
        literal = self.value(value)
        if taken:
            self.values[f"self.{attr}"] = literal
        self._set(attr, "none" if literal is None else "set", taken)


def _registered_name(small: cst.CSTNode) -> str | None:
    """`self.register_buffer("eps", ...)` (also register_parameter, add_module, register_module): the name."""
    if type(small) is not cst.Expr or type(small.value) is not cst.Call:
        return None
    call = small.value
    func = call.func
    if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" and \
            func.attr.value in ("register_buffer", "register_parameter", "add_module", "register_module") and \
            call.args and type(call.args[0].value) is cst.SimpleString:
        return call.args[0].value.evaluated_value
    return None


def folded_by_script(ancestors: list[cst.CSTNode], node: cst.CSTNode, states: dict[str, str]) -> bool:
    """Whether `node` sits in a branch TorchScript drops when compiling: the other side of `self.b is None` /
    `self.b is not None` where `b` is None with `__init__`'s defaults (TorchScript decides a None check on a
    NoneType attribute when it compiles; `default_attribute_states`)."""
    path = [*ancestors, node]
    for i, anc in enumerate(path[:-1]):
        if type(anc) is not cst.If:
            continue
        child = path[i + 1]
        test = anc.test
        if child is test or type(test) is not cst.Comparison or len(test.comparisons) != 1:
            continue
        op = test.comparisons[0]
        left = test.left
        if not (type(op.operator) in (cst.Is, cst.IsNot) and type(op.comparator) is cst.Name
                and op.comparator.value == "None" and type(left) is cst.Attribute
                and type(left.value) is cst.Name and left.value.value == "self"
                and states.get(left.attr.value) == "none"):
            continue
        in_body = child is not anc.orelse  # the analyzer's stack holds statements, not the blocks around them
        if in_body == (type(op.operator) is cst.IsNot):
            return True  # `if self.b is not None:` body, or `if self.b is None: ... else:` branch
    return False


def default_attribute_states(ctx: "RuleContext") -> dict[str, str]:
    """`self.<attr>` -> "none" (None when `__init__` runs with its defaults), "missing" (set only in branches the
    defaults do not take: TorchScript then finds no such attribute) or "set"/"unknown". TorchScript types a module's
    attributes from the instance, so with the defaults a "none" one is NoneType and a "missing" one absent. Only
    the class's own `__init__` counts (once per class); attributes its class body declares are left out."""
    cache = ctx.__dict__.setdefault("_default_attr_states", {})
    key = id(ctx.class_node)
    if key in cache:
        return cache[key]
    init = _init_of(ctx.class_node)
    states: dict[str, str] = {}
    if init is not None:
        walked = _DefaultInit(init)
        declared = {s.body[0].target.value for s in ctx.class_node.body.body
                    if type(s) is cst.SimpleStatementLine and type(s.body[0]) in (cst.AnnAssign, cst.Assign)
                    and type(getattr(s.body[0], "target", None)) is cst.Name}
        declared |= {t.target.value for s in ctx.class_node.body.body if type(s) is cst.SimpleStatementLine
                     and type(s.body[0]) is cst.Assign for t in s.body[0].targets if type(t.target) is cst.Name}
        dynamic = any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == "setattr"
                      for n in iter_nodes(init.body))
        if not dynamic:
            states = {a: s for a, s in walked.state.items() if a not in declared}
    cache[key] = states
    return states


def deciding_parameters(attr: str, ctx: "RuleContext") -> list[tuple[str, int | None, str]]:
    """The parameters of the class's `__init__` whose value decides whether `self.<attr>` ends up as it does with
    the defaults (None or unset): (name, position among the arguments a build passes, or None for keyword-only;
    its default as a literal's repr). A build of the class that passes one of them another value may set the
    attribute (`Upsample1D(ch, use_conv=True)` sets `self.conv`), so a claim about the defaults' state holds for
    a build only where it passes none of them (`RepoIndex.builds_of`: every build in the tree)."""
    init = _init_of(ctx.class_node)
    if init is None:
        return []
    state = default_attribute_states(ctx).get(attr)
    params = init.params
    positional = [*params.posonly_params, *params.params][1:]  # after `self`
    out: list[tuple[str, int | None, str]] = []
    for position, param in [*enumerate(positional), *((None, p) for p in params.kwonly_params)]:
        name = param.name.value
        if _DefaultInit(init, unknown=name).state.get(attr) != state:
            out.append((name, position, argument_literal(param.default) if param.default is not None else "?"))
    return out


def build_passes(build: "ClassBuild", parameters: list[tuple[str, int | None, str]]) -> bool:
    """Whether a build of the class (`RepoIndex.builds_of`) passes one of `parameters` (`deciding_parameters`)
    a value other than its default, or one not known (`*args`, `**kwargs`, no literal)."""
    keywords = dict(build.keywords)
    for name, position, default in parameters:
        if name in keywords:
            value = keywords[name]
        elif position is not None and position < len(build.args):
            value = build.args[position]
        elif build.star_kwargs or (position is not None and build.star_args):
            return True
        else:
            continue
        if value == "?" or value != default:
            return True
    return False


def script_signature(function: cst.FunctionDef, aliases: dict[str, str]) -> tuple[tuple[str, str, str, bool], ...] | None:
    """A function's parameters as TorchScript types them, for checking calls from other files (`FunctionInfo.
    script_params`): (name, "Tensor" (unannotated, or annotated a Tensor), "Optional", or "other"; its default:
    "none", "value" or "" for none; keyword-only). None where it takes `*args` or `**kwargs`."""
    params = function.params
    if type(params.star_arg) is cst.Param or params.star_kwarg is not None:
        return None
    out = []
    for param, keyword_only in [*((p, False) for p in [*params.posonly_params, *params.params]),
                                *((p, True) for p in params.kwonly_params)]:
        annotation = param.annotation.annotation if param.annotation is not None else None
        if annotation is None or (qualify(annotation, aliases) or "") in ("torch.Tensor", "Tensor"):
            kind = "Tensor"
        elif optional_annotation(annotation, aliases):
            kind = "Optional"
        else:
            kind = "other"
        default = "" if param.default is None else "none" if (
            type(param.default) is cst.Name and param.default.value == "None") else "value"
        out.append((param.name.value, kind, default, keyword_only))
    return tuple(out)


def any_valued_dict_param(value: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """`value` is a parameter of the class's `__init__` annotated `Dict[str, Any]` (a config of mixed values):
    TorchScript infers a dict attribute's type from its values and cannot type one whose values differ."""
    init = _init_of(ctx.class_node)
    if init is None or type(value) is not cst.Name:
        return False
    params = init.params
    for p in [*params.params, *params.kwonly_params]:
        if p.name.value == value.value and p.annotation is not None:
            annotation = p.annotation.annotation
            if type(annotation) is not cst.Subscript or len(annotation.slice) != 2:
                return False
            outer = qualify(annotation.value, ctx.facts.aliases) or ""
            inner = annotation.slice[1].slice
            return (outer.rsplit(".", 1)[-1] in ("Dict", "dict", "Mapping")
                    and type(inner) is cst.Index and qualify(inner.value, ctx.facts.aliases) == "typing.Any")
    return False


class _OptionalFlow:
    """Which locals TorchScript types Optional before each statement of a function, following its refinement
    rules: a parameter annotated `Optional[...]` starts Optional; `x is not None` / `isinstance(x, T)` refine it in
    the branch that holds (`and` chains too), `x is None` in the other; `assert x is not None` from there on; a
    branch that returns or raises leaves the other's types; after an `if`, a local is Optional where either side
    leaves it so. Only locals: TorchScript never refines `self.x`."""

    def __init__(self, function: cst.FunctionDef, aliases: dict[str, str]) -> None:
        self.aliases = aliases
        self.before: dict[int, frozenset[str]] = {}
        params = function.params
        start = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]
                 if p.annotation is not None and optional_annotation(p.annotation.annotation, aliases)}
        self._block(function.body, frozenset(start))

    def _refine(self, test: cst.BaseExpression, state: frozenset[str], holds: bool) -> frozenset[str]:
        """The state inside the branch where `test` is `holds`."""
        if type(test) is cst.BooleanOperation:
            if (type(test.operator) is cst.And) == holds:  # `a and b` true, `a or b` false: both sides' refinements
                return self._refine(test.right, self._refine(test.left, state, holds), holds)
            return state
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self._refine(test.expression, state, not holds)
        if type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.left) is cst.Name:
            op = test.comparisons[0]
            if type(op.operator) in (cst.Is, cst.IsNot) and type(op.comparator) is cst.Name \
                    and op.comparator.value == "None":
                if (type(op.operator) is cst.IsNot) == holds:
                    return state - {test.left.value}
                return state
        if type(test) is cst.Call and type(test.func) is cst.Name and test.func.value == "isinstance" \
                and test.args and type(test.args[0].value) is cst.Name and holds:
            return state - {test.args[0].value.value}
        return state

    def _optional_value(self, value: cst.BaseExpression | None, state: frozenset[str]) -> bool:
        if value is None:
            return False
        if type(value) is cst.Name:
            return value.value == "None" or value.value in state
        if type(value) is cst.IfExp:
            return self._optional_value(value.body, state) or self._optional_value(value.orelse, state)
        return False

    def _block(self, block: cst.BaseSuite, state: frozenset[str]) -> tuple[frozenset[str], bool]:
        body = block.body if type(block) is cst.IndentedBlock else [block]
        for stmt in body:
            state, ends = self._statement(stmt, state)
            if ends:
                return state, True
        return state, False

    def _statement(self, stmt: cst.CSTNode, state: frozenset[str]) -> tuple[frozenset[str], bool]:
        self.before[id(stmt)] = state
        if type(stmt) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in stmt.body:
                self.before[id(small)] = state
                if type(small) in (cst.Return, cst.Raise, cst.Continue, cst.Break):
                    return state, True
                if type(small) is cst.Assign:
                    optional = self._optional_value(small.value, state)
                    for target in small.targets:
                        t = target.target
                        if type(t) is cst.Name:
                            state = state | {t.value} if optional else state - {t.value}
                        elif type(t) in (cst.Tuple, cst.List):  # unpacked items: typed by the value's items
                            state = state - {n.value for n in iter_nodes(t) if type(n) is cst.Name}
                elif type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    optional = optional_annotation(small.annotation.annotation, self.aliases)
                    state = state | {small.target.value} if optional else state - {small.target.value}
                elif type(small) is cst.AugAssign and type(small.target) is cst.Name:
                    state = state - {small.target.value}
                elif type(small) is cst.Assert:
                    state = self._refine(small.test, state, True)
            return state, False
        if type(stmt) is cst.If:
            inside, body_ends = self._block(stmt.body, self._refine(stmt.test, state, True))
            other = self._refine(stmt.test, state, False)
            other_ends = False
            if stmt.orelse is not None:
                if type(stmt.orelse) is cst.If:
                    other, other_ends = self._statement(stmt.orelse, other)
                else:
                    self.before[id(stmt.orelse)] = other
                    other, other_ends = self._block(stmt.orelse.body, other)
            if body_ends and other_ends:
                return inside | other, True
            if body_ends:
                return other, False
            if other_ends:
                return inside, False
            return inside | other, False
        if type(stmt) in (cst.For, cst.While):
            assigned_in_loop, _ = self._block(stmt.body, state)
            return state | assigned_in_loop, False
        if type(stmt) in (cst.With, cst.Try, cst.TryStar):
            after, ends = self._block(stmt.body, state)
            for handler in getattr(stmt, "handlers", ()):
                self.before[id(handler)] = state
                self._block(handler.body, state)
            return after, ends
        return state, False  # a nested def or class: its own scope


def optional_at(name: cst.Name, ctx: "RuleContext") -> bool:
    """Whether TorchScript types the local `name` Optional where it is read (`_OptionalFlow`, once per function)."""
    fn = ctx.function
    if fn is None:
        return False
    cache = ctx.__dict__.setdefault("_optional_flow", {})
    flow = cache.get(id(fn))
    if flow is None or flow[0] is not fn:
        flow = cache[id(fn)] = (fn, _OptionalFlow(fn, ctx.facts.aliases))
    before = flow[1].before
    for anc in reversed(ctx.ancestors):
        state = before.get(id(anc))
        if state is not None:
            return name.value in state
    return False


def _params(function: cst.FunctionDef, method: bool) -> list[cst.Param]:
    params = [*function.params.posonly_params, *function.params.params]
    return params[1:] if method and params else params


def module_function(name: str, ctx: "RuleContext") -> cst.FunctionDef | None:
    """The module-level `def name` of this file, or None."""
    return next((s for s in ctx.module.body if type(s) is cst.FunctionDef and s.name.value == name), None)


def parameter_for(call: cst.Call, function: cst.FunctionDef, arg: cst.Arg, method: bool) -> cst.Param | None:
    """The parameter of `function` that `arg` of `call` binds (by keyword, or by position)."""
    if arg.keyword is not None:
        return next((p for p in [*_params(function, method), *function.params.kwonly_params]
                     if p.name.value == arg.keyword.value), None)
    if arg.star:
        return None
    positional = [a for a in call.args if a.keyword is None and not a.star]
    params = _params(function, method)
    index = next(i for i, a in enumerate(positional) if a is arg)
    return params[index] if index < len(params) else None


def attribute_built_with_int(attr: str, ctx: "RuleContext") -> str | None:
    """Why `self.<attr>` holds an int: `__init__` sets it from one of its parameters, annotated `int`, or one that a
    constructor call of this class in the file passes an int literal (TorchScript types the attribute from the
    instance's value, whatever the annotation). The parameter or the call's text, or None."""
    init = _init_of(ctx.class_node)
    if init is None:
        return None
    sources = {}
    for node, _ in walk(init.body, (init,)):
        if type(node) is cst.Assign and type(node.value) is cst.Name:
            for target in node.targets:
                t = target.target
                if type(t) is cst.Attribute and type(t.value) is cst.Name and t.value.value == "self":
                    sources.setdefault(t.attr.value, []).append(node.value.value)
    names = sources.get(attr, [])
    if len(names) != 1:
        return None
    param = names[0]
    declared = next((p for p in [*init.params.params, *init.params.kwonly_params] if p.name.value == param), None)
    if declared is not None and declared.annotation is not None and \
            type(declared.annotation.annotation) is cst.Name and declared.annotation.annotation.value == "int":
        return f"{param}: int"  # __init__ itself takes an int
    cache = ctx.__dict__.setdefault("_constructor_calls", {})
    class_name = ctx.class_node.name.value
    calls = cache.get(class_name)
    if calls is None:
        calls = cache[class_name] = [n for n in iter_nodes(ctx.module) if type(n) is cst.Call
                                     and type(n.func) is cst.Name and n.func.value == class_name]
    for call in calls:
        for arg in call.args:
            bound = parameter_for(call, init, arg, method=True)
            if bound is not None and bound.name.value == param and literal_scalar_type(arg.value) == "int":
                return ctx.module.code_for_node(call)
    return None


def _plain_classes(ctx: "RuleContext") -> dict[str, cst.ClassDef]:
    """The file's module-level classes that are plain TorchScript classes: every base (if any) is `object` or
    another such class of the file; a class with a base from elsewhere (nn.Module, NamedTuple, Enum) is left out."""
    cache = ctx.__dict__.get("_plain_classes")
    if cache is not None and cache[0] is ctx.module:
        return cache[1]
    classes = {s.name.value: s for s in ctx.module.body if type(s) is cst.ClassDef}
    plain: dict[str, cst.ClassDef] = {}

    def is_plain(name: str, seen: frozenset[str]) -> bool:
        node = classes.get(name)
        if node is None or name in seen or node.decorators or node.keywords:
            return False
        for base in node.bases:
            value = base.value
            if type(value) is cst.Name and value.value == "object":
                continue
            if type(value) is not cst.Name or not is_plain(value.value, seen | {name}):
                return False
        return True

    for name, node in classes.items():
        if is_plain(name, frozenset()):
            plain[name] = node
    ctx.__dict__["_plain_classes"] = (ctx.module, plain)
    return plain


def _own_members(node: cst.ClassDef) -> set[str]:
    names = set()
    for stmt in node.body.body:
        if type(stmt) is cst.FunctionDef:
            names.add(stmt.name.value)
        elif type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign:
                    names |= {t.target.value for t in small.targets if type(t.target) is cst.Name}
                elif type(small) is cst.AnnAssign and type(small.target) is cst.Name:
                    names.add(small.target.value)
    return names


def inherited_member(call: cst.Call, ctx: "RuleContext") -> tuple[str, str, str] | None:
    """(class, member, base) where `call` reaches a member a plain class of the file only inherits: `C(...)` with
    `__init__` from a base, or `C(...).m(...)` / `c.m(...)` (`c = C(...)` the function's one binding of `c`) with
    `m` from a base. TorchScript compiles a class from its own body only (2.13): the inherited member is not there
    (`Class C does not have an __init__ function defined`, `object has no attribute or method 'm'`)."""
    plain = _plain_classes(ctx)
    if not plain:
        return None
    func = call.func
    if type(func) is cst.Name and func.value in plain:
        cls, member = func.value, "__init__"
    elif type(func) is cst.Attribute:
        owner = func.value
        if type(owner) is cst.Name and ctx.function is not None:
            owner = _single_binding(ctx.function, owner.value)
        if type(owner) is not cst.Call or type(owner.func) is not cst.Name or owner.func.value not in plain:
            return None
        cls, member = owner.func.value, func.attr.value
    else:
        return None
    node = plain[cls]
    if not node.bases or member in _own_members(node):
        return None
    queue = [b.value.value for b in node.bases if type(b.value) is cst.Name and b.value.value in plain]
    while queue:
        base = queue.pop(0)
        if member in _own_members(plain[base]):
            return cls, member, base
        queue += [b.value.value for b in plain[base].bases if type(b.value) is cst.Name and b.value.value in plain]
    return None


def _single_binding(function: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
    """The value of `name = value`, the function's only binding of `name` (a parameter, a loop target, `+=`,
    `with ... as` or unpacking into it: None)."""
    params = function.params
    if any(p.name.value == name for p in [*params.posonly_params, *params.params, *params.kwonly_params]):
        return None
    values = []
    for node in iter_nodes(function.body):
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) is cst.Name and target.target.value == name:
                    values.append(node.value)
                elif any(type(n) is cst.Name and n.value == name for n in iter_nodes(target.target)):
                    return None
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor) and \
                any(type(n) is cst.Name and n.value == name for n in iter_nodes(node.target)):
            return None
        elif type(node) is cst.AsName and type(node.name) is cst.Name and node.name.value == name:
            return None
    return values[0] if len(values) == 1 else None


_DATACLASS = "dataclasses.dataclass"
_GENERATED = ("init", "repr", "eq")  # the methods `@dataclass` writes by default


def generated_methods(node: cst.ClassDef, aliases: dict[str, str]) -> bool:
    """Whether the class is a `@dataclass` for which Python writes `__init__`, `__repr__` and `__eq__` (none of them
    switched off by `init=False` / `repr=False` / `eq=False`): TorchScript, compiling the class, asks for each
    method's source and a generated one has none (`Failed to get source for <function Cfg.__init__> using
    inspect.getsource`, torch 2.13). Read into the index (`ClassInfo.dataclass`)."""
    for d in node.decorators:
        call = d.decorator if type(d.decorator) is cst.Call else None
        if (qualify(call.func if call is not None else d.decorator, aliases) or "") != _DATACLASS:
            continue
        off = {a.keyword.value for a in (call.args if call is not None else ())
               if a.keyword is not None and type(a.value) is cst.Name and a.value.value == "False"}
        return not off.intersection(_GENERATED)
    return False


def _class_named(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """The dotted name of the class `expr` names (`Cfg`, `cfgs.Cfg`): through the file's imports, or
    `module.Cfg` for a class the file defines at top level; None for anything else (torch, builtins, a lower-case
    name: not a class by convention)."""
    written = dotted(expr) if type(expr) in (cst.Name, cst.Attribute) else None
    if written is None or not written.rpartition(".")[2][:1].isupper():
        return None
    head = written.partition(".")[0]
    if head in ctx.facts.aliases:
        qualified = qualify(expr, ctx.facts.aliases) or ""
        return None if qualified.startswith(("torch.", "typing.", "builtins.")) else qualified
    if any(type(s) is cst.ClassDef and s.name.value == head for s in ctx.module.body):
        return f"{ctx.module_name}.{written}"
    return None


def _annotated_class(annotation: cst.BaseExpression, ctx: "RuleContext") -> tuple[str | None, bool]:
    """`Cfg`, or `Optional[Cfg]` / `Cfg | None`: the class, and whether the annotation admits None."""
    if optional_annotation(annotation, ctx.facts.aliases):
        inner = without_none(annotation, ctx.facts.aliases)
        return (_class_named(inner, ctx) if inner is not None else None), True
    return _class_named(annotation, ctx), False


def _none_tested(test: cst.BaseExpression) -> tuple[str, str | None] | None:
    """`p is None` / `p is not None`: ("is" or "is not", the name tested)."""
    if type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.comparisons[0].comparator) is \
            cst.Name and test.comparisons[0].comparator.value == "None":
        operator = type(test.comparisons[0].operator)
        if operator in (cst.Is, cst.IsNot):
            return ("is" if operator is cst.Is else "is not"), dotted(test.left)
    return None


def _instance_classes(value: cst.BaseExpression, init: cst.FunctionDef, ctx: "RuleContext",
                      seen: frozenset[str] = frozenset(), refined: bool = False) -> list[str] | None:
    """The classes whose instance `value` is, in `__init__`: `Cfg(...)`, a copy of one (`copy.deepcopy(p)`), either
    side of `p if p is not None else Cfg()`, a parameter annotated `Cfg` (or `Optional[Cfg]` with every None
    replaced: its default is no None, `__init__` rebinds it to an instance, or the value is the side of such an
    `if` where it is not None), or a local bound only to one. None
    where the value may be anything else."""
    kind = type(value)
    if kind is cst.Call:
        if (qualify(value.func, ctx.facts.aliases) or "") in ("copy.deepcopy", "copy.copy") and len(value.args) == 1:
            return _instance_classes(value.args[0].value, init, ctx, seen)
        named = _class_named(value.func, ctx)
        return [named] if named is not None else None
    if kind is cst.IfExp:
        tested = _none_tested(value.test)
        body = _instance_classes(value.body, init, ctx, seen, refined=tested == ("is not", dotted(value.body)))
        orelse = _instance_classes(value.orelse, init, ctx, seen, refined=tested == ("is", dotted(value.orelse)))
        return body + orelse if body is not None and orelse is not None else None
    if kind is not cst.Name or value.value in seen:
        return None
    name = value.value
    params = init.params
    param = next((p for p in [*params.params, *params.kwonly_params] if p.name.value == name), None)
    assignments = _assignments(init, ctx)
    bindings = [n.value for n in assignments if type(n) is cst.Assign
                for t in n.targets if type(t.target) is cst.Name and t.target.value == name]
    rebinds = [_instance_classes(b, init, ctx, seen | {name}) for b in bindings]
    if any(r is None for r in rebinds) or any(type(n) in (cst.AugAssign, cst.AnnAssign, cst.For) and
                                              type(n.target) is cst.Name and n.target.value == name
                                              for n in assignments):
        return None
    found = [c for r in rebinds for c in r]
    if param is None:
        return found or None
    if param.annotation is None:
        return None
    declared, optional = _annotated_class(param.annotation.annotation, ctx)
    if declared is None:
        return None
    none_default = param.default is None or (type(param.default) is cst.Name and param.default.value == "None")
    if optional and none_default and not found and not refined:
        return None  # the default leaves None in the attribute
    return [declared, *found]


def _binds_attr(target: cst.BaseExpression, attr: str) -> bool:
    """`self.<attr>` as an assignment target, or inside a tuple / list target (`self.cfg, self.n = ...`)."""
    if type(target) in (cst.Tuple, cst.List):
        return any(_binds_attr(e.value, attr) for e in target.elements)
    if type(target) is cst.StarredElement:
        return _binds_attr(target.value, attr)
    return type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self" \
        and target.attr.value == attr


_ASSIGNMENTS = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For)


def _assignments(init: cst.FunctionDef, ctx: "RuleContext") -> list[cst.CSTNode]:
    """The assignments (and `for` loops) of `__init__` in `iter_nodes` order, listed once per class (asked per
    attribute read and per name stored, a walk of the whole `__init__` each time cost a tenth of a lint run on
    timm)."""
    cache = ctx.__dict__.setdefault("_init_assignments", {})
    hit = cache.get(id(init))
    if hit is None or hit[0] is not init:
        hit = cache[id(init)] = (init, [n for n in iter_nodes(init.body) if type(n) in _ASSIGNMENTS])
    return hit[1]


def stored_instances(attr: str, ctx: "RuleContext") -> list[str] | None:
    """The classes (dotted names) of the objects the class's own `__init__` stores in `self.<attr>`, where every
    value it stores there is an instance of a class (`_instance_classes`: `self.cfg = Cfg()`, `self.config =
    config` of a parameter annotated `Cfg`, `copy.deepcopy(config) if config is not None else Cfg()`); None where
    one may be anything else, or the class body declares the attribute. TorchScript types a module attribute
    holding a plain object by compiling the object's class as a TorchScript class (torch 2.13); whether that
    class compiles is a tree fact (`RepoIndex.script_class_failure`)."""
    cache = ctx.__dict__.setdefault("_stored_instances", {})
    key = (id(ctx.class_node), attr)
    if key in cache:
        return cache[key]
    init = _init_of(ctx.class_node)
    found: list[str] | None = None
    if init is not None and attr not in _own_members(ctx.class_node):
        found = []
        for node in _assignments(init, ctx):
            targets = node.targets if type(node) is cst.Assign else ()
            stores = [t for t in targets if type(t.target) is cst.Attribute and type(t.target.value) is cst.Name
                      and t.target.value.value == "self" and t.target.attr.value == attr]
            others = [node.target] if type(node) in (cst.AugAssign, cst.AnnAssign) else \
                [t.target for t in targets if t not in stores]
            if any(_binds_attr(other, attr) for other in others):
                found = None  # `self.cfg += ...`, `self.cfg: T = ...`, `self.cfg, self.n = ...`
                break
            if stores:
                classes = _instance_classes(node.value, init, ctx) if len(targets) == 1 else None
                if classes is None:
                    found = None
                    break
                found += [c for c in classes if c not in found]
    cache[key] = found or None
    return cache[key]
