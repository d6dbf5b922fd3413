"""Where a Dynamo frame begins, and what its entry hands on: the values automatic dynamic makes symbolic.

Dynamo guards on the arguments of the frame it compiles: a module's `forward` or a `@torch.compile` function
(`is_frame_entry`). From their second distinct value it makes an int/float argument a SymInt/SymFloat and an
input's sizes symbolic (automatic dynamic). Dynamo inlines the methods `forward` calls, so a number argument, an
input size or an input tensor passed on to `self._helper(...)` is just as symbolic there (verified on 2.13: an
int argument formatted in a helper GB0021, steps of linspace there, sizes in its f-string, NumPy on them,
torch.as_tensor of them: each recompiled per value as at the entry). `carried_values` works that out once per
class, syntactically, from the entries outward; in a helper only what was handed over counts, never a size of
the helper's own tensors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from compilelint.analysis.names import qualify
from compilelint.analysis.nodes import child_nodes, source_children
from compilelint.analysis.tensors import Kind
from compilelint.torchapi.modes import COMPILE_ENTRIES

if TYPE_CHECKING:
    from compilelint.analyzer import RuleContext


def is_parameter(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    """`expr` is a bare name of one of the walked function's parameters (positional or keyword-only)."""
    fn = ctx.function
    if fn is None or type(expr) is not cst.Name:
        return False
    params = fn.params
    return any(p.name.value == expr.value for p in [*params.posonly_params, *params.params, *params.kwonly_params])


def is_frame_entry(ctx: "RuleContext") -> bool:
    """Whether the function being walked is where callers hand arguments to a compiled frame.

    Dynamo guards on the arguments of the frame it compiles: a module's `forward` or a `@torch.compile`
    function. A helper that forward calls is inlined and gets its arguments from that call site: constants
    there stay constants (`F.interpolate(x, mode="bilinear")`), and what the entry passes on of its own
    arguments stays as dynamic as at the entry (carried_values follows those).
    """
    fn = ctx.function
    if fn is None:
        return False
    if ctx.class_node is not None and fn.name.value == "forward":
        return True
    return any(d in COMPILE_ENTRIES for d in ctx.decorators)


_TENSOR_ANNOTATIONS = {"Tensor", "torch.Tensor"}


def _positional_params(fn: cst.FunctionDef) -> list[str]:
    return [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]


def _is_size_of(expr: cst.BaseExpression, seeds: dict[str, str]) -> bool:
    """`t.shape`, `t.shape[...]`, `t.size(...)`, `t.numel()` of a tensor in `seeds`."""
    if type(expr) is cst.Subscript:
        expr = expr.value
    if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in ("size", "numel"):
        expr = expr.func
    elif type(expr) is cst.Attribute and expr.attr.value != "shape":
        return False
    return (type(expr) is cst.Attribute and type(expr.value) is cst.Name and seeds.get(expr.value.value) == "tensor"
            and (expr.attr.value in ("shape", "size", "numel")))


def _whole_shape(expr: cst.BaseExpression) -> bool:
    """`t.shape`, `t.size()`, `t.shape[a:b]`: a torch.Size, not one size."""
    if type(expr) is cst.Subscript:
        return any(type(e.slice) is cst.Slice for e in expr.slice)
    if type(expr) is cst.Call:
        return not expr.args and type(expr.func) is cst.Attribute and expr.func.attr.value == "size"
    return type(expr) is cst.Attribute and expr.attr.value == "shape"


def _value_kind(expr: cst.BaseExpression, seeds: dict[str, str]) -> str | None:
    if type(expr) is cst.Name:
        return seeds.get(expr.value)
    if not _is_size_of(expr, seeds):
        return None
    return "shape" if _whole_shape(expr) else "size"


def _union_members(ann: cst.BaseExpression) -> list[str]:
    """The members of `Union[a, b]` / `a | b` as written (`torch.Tensor`, `int`); [] for anything else."""
    if type(ann) is cst.BinaryOperation and type(ann.operator) is cst.BitOr:
        return _union_members(ann.left) + _union_members(ann.right) or []
    if type(ann) is cst.Subscript and _EMPTY.code_for_node(ann.value) in ("Union", "typing.Union"):
        return [_EMPTY.code_for_node(e.slice.value) for e in ann.slice if type(e.slice) is cst.Index]
    return [_EMPTY.code_for_node(ann)]


def _is_tensor_or_number(ann: cst.BaseExpression) -> bool:
    """`torch.Tensor | float | int`, `Union[Tensor, int]`: a tensor or a Python number."""
    members = _union_members(ann)
    return len(members) > 1 and bool(set(members) & _TENSOR_ANNOTATIONS) and bool(set(members) & {"int", "float"})


def _entry_seeds(fn: cst.FunctionDef) -> dict[str, str]:
    """An entry's parameters: int/float ones "number", unannotated (or Tensor-annotated) ones without a
    default "tensor" (forward's inputs), those annotated a tensor or a number "tensor-or-number"."""
    seeds: dict[str, str] = {}
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        name = p.name.value
        if name in ("self", "cls"):
            continue
        ann = p.annotation.annotation if p.annotation is not None else None
        ann_text = cst.Module([]).code_for_node(ann) if ann is not None else ""
        if ann is not None and _is_tensor_or_number(ann):
            seeds[name] = "tensor-or-number"
        elif ann_text in ("int", "float") or (ann is None and type(p.default) in (cst.Integer, cst.Float)):
            seeds[name] = "number"
        elif (ann is None and p.default is None) or ann_text in _TENSOR_ANNOTATIONS:
            seeds[name] = "tensor"
    return seeds


class _Flow:
    """Within one method: names bound to sizes of its tensors, and what each `self.<method>(...)` call passes
    (one walk in source order, not into nested functions)."""

    def __init__(self, seeds: dict[str, str], methods: dict[str, cst.FunctionDef]) -> None:
        self.seeds = dict(seeds)
        self.methods = methods
        self.passed: list[tuple[str, str, str]] = []  # (method, its parameter, kind)

    def walk(self, body: cst.CSTNode) -> None:
        stack = [body]
        while stack:
            node = stack.pop()
            node_type = type(node)
            if node_type is cst.FunctionDef:
                continue  # a nested function is its own frame
            if node_type is cst.Assign:
                self._assign(node)
            elif node_type is cst.Call:
                self._call(node)
            children = source_children(node)
            if children:
                children.reverse()
                stack.extend(children)

    def _assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not _is_size_of(node.value, self.seeds):
            return
        target = node.targets[0].target
        if type(target) is cst.Name:  # `s = x.shape` holds a whole shape, `n = x.shape[0]` one size
            self.seeds[target.value] = "shape" if _whole_shape(node.value) else "size"
            return
        for e in getattr(target, "elements", ()):  # `h, w = x.shape[-2:]`: one size each
            if type(e.value) is cst.Name:
                self.seeds[e.value.value] = "size"

    def _call(self, node: cst.Call) -> None:
        func = node.func
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"):
            return
        callee = self.methods.get(func.attr.value)
        if callee is None:
            return
        params = [n for n in _positional_params(callee) if n != "self"]
        positional = [a for a in node.args if a.keyword is None and not a.star]
        for i, a in enumerate(positional[:len(params)]):
            kind = _value_kind(a.value, self.seeds)
            if kind:
                self.passed.append((callee.name.value, params[i], kind))
        for a in node.args:
            if a.keyword is not None:
                kind = _value_kind(a.value, self.seeds)
                if kind:
                    self.passed.append((callee.name.value, a.keyword.value, kind))


def _class_flow(cls: cst.ClassDef, aliases: dict[str, str]) -> dict[str, dict[str, str]]:
    """method name -> {name: "number" | "size" | "shape" | "tensor"} for the methods (not entries) that a compiled
    entry of the class calls, directly or through other such methods, with its number arguments, input sizes or
    shapes, or input tensors; names bound in them to sizes or shapes of those tensors are included."""
    methods = {s.name.value: s for s in cls.body.body if type(s) is cst.FunctionDef}
    entries = {n for n, fn in methods.items() if n == "forward" or any(
        qualify(d.decorator.func if type(d.decorator) is cst.Call else d.decorator, aliases) in COMPILE_ENTRIES
        for d in fn.decorators)}
    carried: dict[str, dict[str, str]] = {}
    work = [(n, _entry_seeds(methods[n])) for n in entries]
    seen_rounds = 0
    while work and seen_rounds < 8:  # a chain of helpers is short; recursion stops here
        seen_rounds += 1
        nxt: list[tuple[str, dict[str, str]]] = []
        for name, seeds in work:
            flow = _Flow(seeds, methods)
            flow.walk(methods[name].body)
            if name not in entries:
                carried.setdefault(name, {}).update({k: v for k, v in flow.seeds.items() if v in ("size", "shape")})
            for callee, param, kind in flow.passed:
                if callee in entries or carried.setdefault(callee, {}).get(param) == kind:
                    continue
                carried[callee][param] = kind
                nxt.append((callee, dict(carried[callee])))
        work = nxt
    return {n: c for n, c in carried.items() if c}


def carried_values(ctx: "RuleContext") -> dict[str, str]:
    """For a method (not an entry) of a module class: its parameters and locals that hold what a compiled entry
    passed it, {name: "number" | "size" | "shape" | "tensor"} (see _class_flow); {} elsewhere."""
    if ctx.class_node is None or ctx.function is None or is_frame_entry(ctx):
        return {}
    cache = ctx.__dict__.setdefault("_class_flows", {})
    key = id(ctx.class_node)
    if key not in cache:
        cache[key] = (ctx.class_node, _class_flow(ctx.class_node, ctx.facts.aliases))
    return cache[key][1].get(ctx.function.name.value, {})


def runtime_kind(expr: cst.BaseExpression, ctx: "RuleContext") -> Kind:
    """`expr`'s kind as export, trace and Dynamo see it at run time. It differs from `ctx.facts.kind` in one case: in
    a helper, an unannotated parameter is assumed a tensor (what TorchScript types it), but where the compiled
    entry hands it a number argument or an input size (carried_values), it holds that Python number; arithmetic
    of such names and literals is a size too (`np.ceil(h / 16)` in a helper is NumPy on an int, not on a tensor)."""
    carried = carried_values(ctx)
    if carried and _only_carried_numbers(expr, carried):
        return Kind.SIZE
    return ctx.facts.kind(expr)


def _only_carried_numbers(expr: cst.BaseExpression, carried: dict[str, str]) -> bool:
    """Arithmetic whose leaves are literals and carried numbers or sizes, at least one of them."""
    leaves: list[cst.BaseExpression] = []
    todo = [expr]
    while todo:
        e = todo.pop()
        if type(e) is cst.BinaryOperation:
            todo += [e.left, e.right]
        elif type(e) is cst.UnaryOperation:
            todo.append(e.expression)
        else:
            leaves.append(e)
    names = [e for e in leaves if type(e) is cst.Name]
    return bool(names) and all(carried.get(n.value) in ("number", "size") for n in names) and all(
        type(e) in (cst.Name, cst.Integer, cst.Float) for e in leaves)


def reaches_entry_values(ctx: "RuleContext") -> bool:
    """A compiled entry, or a method it hands numbers, sizes or input tensors to."""
    return is_frame_entry(ctx) or bool(carried_values(ctx))


def number_argument(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """The name, when `expr` is an int or float parameter (annotated so, or defaulting to such a literal; not
    a bool) of a compiled frame's entry that still holds the caller's number. From its second distinct value
    Dynamo makes such an argument dynamic (automatic dynamic: a SymInt / SymFloat, verified on 2.13)."""
    if type(expr) is not cst.Name or not is_parameter(expr, ctx):
        return None
    name = expr.value
    if not is_frame_entry(ctx):  # a helper's parameter that an entry's number argument was passed to, unchanged
        return name if carried_values(ctx).get(name) == "number" and name not in ctx.facts.values else None
    if ctx.facts.param_types.get(name) not in ("int", "float") or ctx.facts.env.get(name) is not Kind.PY:
        return None
    return name


def tensor_or_number_argument(expr: cst.BaseExpression, ctx: "RuleContext") -> str | None:
    """The parameter's name, when `expr` holds what a compiled entry received as a tensor or a Python number
    (annotated `Tensor | int | float`): the parameter itself, one a helper was handed it in, or a local bound to
    either (`timesteps = timestep`). Dynamo guards its type: each type passed compiles its own graph (2.13)."""
    if type(expr) is not cst.Name or ctx.function is None:
        return None
    bound = ctx.facts.values.get(expr.value)
    if not is_parameter(expr, ctx) and type(bound) is cst.Name and is_parameter(bound, ctx):
        expr = bound
    if not is_parameter(expr, ctx):
        return None
    name = expr.value
    if not is_frame_entry(ctx):
        return name if carried_values(ctx).get(name) == "tensor-or-number" else None
    param = next((p for p in (*ctx.function.params.posonly_params, *ctx.function.params.params,
                              *ctx.function.params.kwonly_params) if p.name.value == name), None)
    if param is None or param.annotation is None or not _is_tensor_or_number(param.annotation.annotation):
        return None
    return name


def loop_count_before(name: str, node: cst.CSTNode, ctx: "RuleContext") -> bool:
    """Whether `range(name)` comes before `node` in the function (source order): Dynamo specialises a loop
    count (RC505), and a formatted specialised int breaks the graph without skipping the frame (verified
    on 2.13)."""

    class _Before(cst.CSTVisitor):
        seen = False
        done = False

        def on_visit(self, n: cst.CSTNode) -> bool:
            if self.done or n is node:
                self.done = True
                return False
            if (type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == "range"
                    and any(type(a.value) is cst.Name and a.value.value == name for a in n.args)):
                self.seen = True
            return True

    v = _Before()
    ctx.function.body.visit(v)
    return v.seen


def _rooted_at_self(expr: cst.BaseExpression) -> bool:
    while type(expr) in (cst.Attribute, cst.Subscript, cst.Call):
        expr = expr.func if type(expr) is cst.Call else expr.value
    return type(expr) is cst.Name and expr.value == "self"


def _is_rank(expr: cst.BaseExpression) -> bool:
    """`x.ndim` / `x.dim()`: the number of dimensions, which Dynamo never makes dynamic."""
    if type(expr) is cst.Attribute:
        return expr.attr.value == "ndim"
    return type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "dim"


def dynamic_size(expr: cst.BaseExpression, ctx: "RuleContext", shapes: bool) -> bool:
    """A tensor size (or, with `shapes`, a whole shape) of a compiled frame's entry, not a module attribute's
    and not a rank: what automatic dynamic turns symbolic once the input's size changes."""
    kinds = (Kind.SIZE, Kind.SHAPE) if shapes else (Kind.SIZE,)
    if not is_frame_entry(ctx):  # in a helper: only what the entry passed (a size, or a size of an input tensor)
        carried = carried_values(ctx)
        if type(expr) is cst.Name:
            return carried.get(expr.value) == "size" or (shapes and carried.get(expr.value) == "shape")
        if not _is_size_of(expr, carried) or _is_rank(expr):
            return False
        return shapes or not _whole_shape(expr)
    return ctx.facts.kind(expr) in kinds and not _rooted_at_self(expr) and not _is_rank(expr)


def mentions_dynamic_size(expr: cst.BaseExpression, ctx: "RuleContext") -> bool:
    t = type(expr)
    if t in (cst.Name, cst.Attribute, cst.Subscript, cst.Call) and dynamic_size(expr, ctx, True):
        return True
    if t is cst.BinaryOperation:
        return mentions_dynamic_size(expr.left, ctx) or mentions_dynamic_size(expr.right, ctx)
    if t is cst.UnaryOperation:
        return mentions_dynamic_size(expr.expression, ctx)
    if t in (cst.Tuple, cst.List):
        return any(mentions_dynamic_size(e.value, ctx) for e in expr.elements)
    return False


def message_of_equality_assert(node: cst.CSTNode, ctx: "RuleContext") -> bool:
    """The message of `torch._assert(a == b, msg)` (timm's `_assert` too) with `a` and `b` plain terms: the size it
    pins cannot change without failing the check, so no second size reaches the f-string (verified on 2.13: the
    second size raised the AssertionError). `H % p == 0` pins nothing and is not excluded."""
    call = ctx.parent
    if type(call) is cst.Arg:
        call = next((a for a in reversed(ctx.ancestors) if type(a) is cst.Call), None)  # the innermost
    if type(call) is not cst.Call or len(call.args) < 2 or not any(a.value is node for a in call.args[1:]):
        return False
    name = call.func.attr.value if type(call.func) is cst.Attribute else getattr(call.func, "value", "")
    test = call.args[0].value
    plain = (cst.Name, cst.Attribute, cst.Subscript, cst.Integer)  # `H == H_`, not `H % p == 0`
    return name == "_assert" and type(test) is cst.Comparison and type(test.left) in plain and any(
        type(c.operator) is cst.Equal and type(c.comparator) in plain for c in test.comparisons)


_CONSTANT_VALUES = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)


def closure_names(fn: cst.Lambda, ctx: "RuleContext") -> list[str]:
    """Names a lambda's body reads from the enclosing function (its parameters, `self` included, and locals),
    leaving out locals last bound to a literal: the closure variables Dynamo cannot take as constants."""
    own = {p.name.value for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)}

    class _Reads(cst.CSTVisitor):
        def __init__(self) -> None:
            self.names: list[str] = []

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)  # `x.shape`: x is read, `shape` is not a name
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value not in own and node.value not in self.names:
                self.names.append(node.value)

    reads = _Reads()
    fn.body.visit(reads)
    facts = ctx.facts
    params = ctx.function.params if ctx.function is not None else None
    own_params = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)} if params else set()
    return [n for n in reads.names if (n in own_params or n in facts.env)
            and not isinstance(facts.values.get(n), _CONSTANT_VALUES)]


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp)
_EMPTY = cst.Module(body=[])


def _builds_in(module: cst.Module, classes: set[str]) -> dict[str, list[tuple[str, str, bool]]]:
    """Calls of `classes` in the module: class name -> [(what it is bound to, its arguments' code, in a loop)].
    One pass with `child_nodes`: a LibCST visitor over the whole module costs about as much as parsing it."""
    builds: dict[str, list[tuple[str, str, bool]]] = {}
    stack: list[tuple[cst.CSTNode, str, int]] = [(module, "", 0)]
    while stack:
        node, target, loops = stack.pop()
        node_type = type(node)
        if node_type is cst.Assign:
            t = node.targets[0].target
            target = t.attr.value if type(t) is cst.Attribute else t.value if type(t) is cst.Name else ""
        elif node_type in _LOOPS:
            loops += 1
        elif node_type is cst.Call and type(node.func) is cst.Name and node.func.value in classes:
            args = _EMPTY.code_for_node(cst.Tuple([cst.Element(a.value) for a in node.args])) if node.args else ""
            builds.setdefault(node.func.value, []).append((target, args, loops > 0))
        stack.extend((child, target, loops) for child in reversed(child_nodes(node)))
    return builds


def class_builds(ctx: "RuleContext") -> dict[str, list[tuple[str, str, bool]]]:
    """Where this file builds each of its own classes: name -> [(the name or attribute it is bound to, the code of
    its arguments, whether the call sits in a loop or comprehension)], once per file."""
    cache = ctx.__dict__.get("_class_builds")
    if cache is None or cache[0] is not ctx.module:
        classes = {s.name.value for s in ctx.module.body if type(s) is cst.ClassDef}
        cache = ctx.__dict__["_class_builds"] = (ctx.module, _builds_in(ctx.module, classes) if classes else {})
    return cache[1]


def shared_frame_builds(ctx: "RuleContext") -> list[str] | None:
    """For a module class's `forward`: the instances that share its code object as a frame of its own, when the
    file builds the class twice or more with differing arguments; None otherwise (instances built alike in a
    loop share their parameter shapes).

    A graph break in a forward that Dynamo inlines makes the caller break at the call, and the forward (and what
    follows the break) becomes its own frame (verified on 2.13). That frame's guards are on the instance it is
    called with: the shapes of its parameters (static: `Guard failed on a parameter`) and its inputs'
    requires_grad. Instances with other widths, or the first fed the model's input and the next a hidden state,
    each compile one graph of it (torchapi.guards: parameter shape, input requires_grad)."""
    if ctx.class_node is None or ctx.function is None or ctx.function.name.value != "forward":
        return None
    builds = class_builds(ctx).get(ctx.class_node.name.value, [])
    if len(builds) >= 2 and len({args for _, args, _ in builds}) >= 2:
        return [target or "?" for target, _, _ in builds]
    return None


_INSTANCE_STATE = (Kind.MODULE, Kind.MODULES, Kind.TENSOR, Kind.TENSORS)


def instance_state_after(node: cst.CSTNode, ctx: "RuleContext") -> list[str]:
    """The `self.<attr>`s holding a submodule or a tensor (a parameter, a buffer) that the walked function reads
    after `node` (the rest of its statement, then the statements that follow): what the frame Dynamo resumes in
    after a graph break at `node` guards per instance (parameter shapes, the inputs' requires_grad, 2.13)."""
    facts = ctx.class_facts
    if ctx.function is None or facts is None:
        return []
    state = {a for a, k in facts.attrs.items() if k in _INSTANCE_STATE} | set(facts.attr_calls) - {
        a for a, t in facts.literal_types.items() if t != "None"}

    nodes, ends, reads = _source_order(ctx)
    at = nodes.get(id(node))
    if at is None:  # in a nested function, a frame of its own
        return []
    read: list[str] = []
    for position, attr in reads:
        if position >= ends[at] and attr in state and attr not in read:
            read.append(attr)
    return read


def _source_order(ctx: "RuleContext") -> tuple[dict[int, int], list[int], list[tuple[int, str]]]:
    """The walked function's nodes in source order (not into nested functions), once per function: each node's
    place, where its subtree ends, and the `self.<attr>` reads with their places. A LibCST visitor would rebuild
    every node it passes, and instance_state_after asks at each call of a forward."""
    fn = ctx.function
    cache = ctx.__dict__.setdefault("_source_order", {})
    if id(fn) not in cache:
        places: dict[int, int] = {}
        ends: list[int] = []
        reads: list[tuple[int, str]] = []
        stack: list[tuple[cst.CSTNode, int]] = [(fn, -1)]  # (node, -1) enters it; (node, place) leaves it
        while stack:
            n, place = stack.pop()
            if place >= 0:
                ends[place] = len(ends)
                continue
            place = len(ends)
            places[id(n)] = place
            ends.append(place + 1)
            if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == "self":
                reads.append((place, n.attr.value))
            stack.append((n, place))
            if type(n) is cst.FunctionDef and n is not fn:
                continue  # a nested function is a frame of its own
            children = source_children(n)
            children.reverse()
            stack.extend((c, -1) for c in children)
        cache[id(fn)] = (fn, (places, ends, reads))
    return cache[id(fn)][1]
