"""Python-level types TorchScript needs spelled out: which plain values are int / float / str / bool,
and where a name is used inside one function.

TorchScript types an unannotated parameter, an empty `[]` and an empty `{}` as Tensor,
List[Tensor] and Dict[str, Tensor]; the annotation rules need to know what the code really puts there
(an int loop index, a float literal, a str key) to say so and to write the annotation. These facts are
computed per function, lazily, and shared by every rule that asks (`function_types(ctx)`).
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from compilelint.analysis.nodes import NODE_TYPES, TEXT_TYPES
from compilelint.analysis.tensors import FunctionFacts, Kind

_SCALAR_CALLS = {"int": "int", "len": "int", "float": "float", "str": "str", "bool": "bool", "round": "int"}
_TENSOR_TYPE = "torch.Tensor"


def literal_scalar_type(expr: cst.BaseExpression) -> str | None:
    if type(expr) is cst.UnaryOperation and type(expr.operator) in (cst.Minus, cst.Plus):
        expr = expr.expression
    if type(expr) is cst.Integer:
        return "int"
    if type(expr) is cst.Float:
        return "float"
    if type(expr) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
        return "str"
    if type(expr) is cst.Name and expr.value in ("True", "False"):
        return "bool"
    return None


class FunctionTypes:
    """Names of one function whose Python type is certain (int loop indices, literal assignments)."""

    def __init__(self, function: cst.FunctionDef) -> None:
        self.function = function
        self.names: dict[str, str | None] = {}
        for p in [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]:
            if p.annotation is not None and type(p.annotation.annotation) is cst.Name and \
                    p.annotation.annotation.value in ("int", "float", "str", "bool"):
                self.names[p.name.value] = p.annotation.annotation.value
        for node, _ in walk(function.body):
            if type(node) in (cst.For, cst.CompFor):
                self._iteration(node.target, node.iter)
            elif type(node) is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name:
                self._note(node.targets[0].target.value, literal_scalar_type(node.value) or _call_type(node.value))
            elif type(node) is cst.AnnAssign and type(node.target) is cst.Name:
                ann = node.annotation.annotation
                if type(ann) is cst.Name and ann.value in ("int", "float", "str", "bool"):
                    self.names[node.target.value] = ann.value

    def _note(self, name: str, typ: str | None) -> None:
        if name in self.names and self.names[name] != typ:
            self.names[name] = None  # assigned values of different types: not certain
        else:
            self.names[name] = typ

    def _iteration(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name:
            fname = iterable.func.value
            if fname == "range" and type(target) is cst.Name:
                self._note(target.value, "int")
            elif fname == "enumerate" and type(target) is cst.Tuple and target.elements and \
                    type(target.elements[0].value) is cst.Name:
                self._note(target.elements[0].value.value, "int")

    def scalar_type(self, expr: cst.BaseExpression, facts: FunctionFacts | None = None) -> str | None:
        """'int' / 'float' / 'str' / 'bool' when `expr` is certainly that Python type, else None."""
        lit = literal_scalar_type(expr)
        if lit is not None:
            return lit
        if type(expr) is cst.Name and expr.value in self.names:
            return self.names[expr.value]
        call = _call_type(expr)
        if call is not None:
            return call
        if type(expr) is cst.BinaryOperation:
            left, right = self.scalar_type(expr.left, facts), self.scalar_type(expr.right, facts)
            if left == right == "str" and type(expr.operator) is cst.Add:
                return "str"
            if left in ("int", "float") and right in ("int", "float"):
                if type(expr.operator) is cst.Divide or "float" in (left, right):
                    return "float"
                return "int"
            return None
        if facts is not None and facts.kind(expr) is Kind.SIZE and type(expr) is not cst.Name:
            return "int"
        return None

    def element_type(self, expr: cst.BaseExpression, facts: FunctionFacts | None = None,
                     class_node: cst.ClassDef | None = None) -> str | None:
        """The TorchScript type of a value put into a container: a scalar, Tensor, or a tuple of those.
        With `class_node`, `self.table[key]` / `self.table.get(key, d)` read the literal table `__init__` built."""
        scalar = self.scalar_type(expr, facts)
        if scalar is not None:
            return scalar
        if class_node is not None and facts is not None:
            looked_up = _self_table_value_type(expr, class_node, facts.aliases)
            if looked_up is not None:
                return looked_up
        if facts is not None and facts.kind(expr) is Kind.TENSOR and type(expr) is not cst.Name:
            return _TENSOR_TYPE
        if type(expr) is cst.Name and facts is not None and facts.kind(expr) is Kind.TENSOR:
            return _TENSOR_TYPE
        if type(expr) is cst.Tuple and expr.elements and not any(type(e) is cst.StarredElement for e in expr.elements):
            parts = [self.element_type(e.value, facts) for e in expr.elements]
            if all(parts):
                return f"Tuple[{', '.join(parts)}]"
        return None


def _self_table_value_type(expr: cst.BaseExpression, class_node: cst.ClassDef, aliases: dict[str, str]) -> str | None:
    owner = None
    if type(expr) is cst.Subscript:
        owner = expr.value
    elif type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "get":
        owner = expr.func.value
    if not (type(owner) is cst.Attribute and type(owner.value) is cst.Name and owner.value.value == "self"):
        return None
    from compilelint.analysis.classshape import class_shape

    values = class_shape(class_node, aliases).init_values.get(owner.attr.value)
    if not values or len(values) != 1:
        return None
    table = values[0]
    if type(table) is cst.Dict:
        items = [e.value for e in table.elements if type(e) is cst.DictElement]
    elif type(table) is cst.DictComp:
        items = [table.value]
    elif type(table) in (cst.List, cst.Tuple) and type(expr) is cst.Subscript:
        items = [e.value for e in table.elements]
    else:
        return None
    if type(table) is cst.DictComp and type(table.value) is cst.BinaryOperation:
        kinds = {"int"} if all(type(x) in (cst.Name, cst.Integer) for x in (table.value.left, table.value.right)) else set()
        # {c: i + 2 for i, c in enumerate(...)}: only trust an enumerate index plus an int literal
        return "int" if kinds and type(table.for_in.iter) is cst.Call and \
            type(table.for_in.iter.func) is cst.Name and table.for_in.iter.func.value == "enumerate" else None
    types = {literal_scalar_type(v) for v in items}
    return types.pop() if len(types) == 1 and None not in types else None


def _call_type(expr: cst.BaseExpression) -> str | None:
    if type(expr) is cst.Call and type(expr.func) is cst.Name and expr.args:
        return _SCALAR_CALLS.get(expr.func.value)
    return None


_CACHE: dict[int, FunctionTypes] = {}


def function_types(function: cst.FunctionDef) -> FunctionTypes:
    cached = _CACHE.get(id(function))
    if cached is not None and cached.function is function:
        return cached
    if len(_CACHE) > 512:
        _CACHE.clear()
    result = _CACHE[id(function)] = FunctionTypes(function)
    return result


_FIELDS: dict[type, tuple[str, ...]] = {}
_SKIP_FIELDS = ("whitespace", "lpar", "rpar", "leading_lines", "comma", "semicolon", "trailing_whitespace",
                "header", "footer", "lines_after_decorators", "newline", "equal", "colon", "dot", "operator",
                "star", "asynchronous")


def _fields(node_type: type) -> tuple[str, ...]:
    names = _FIELDS.get(node_type)
    if names is None:
        import dataclasses

        names = tuple(f.name for f in dataclasses.fields(node_type) if not f.name.startswith(_SKIP_FIELDS)
                      and f.type not in TEXT_TYPES)
        _FIELDS[node_type] = names
    return names


class BodyIndex:
    """One walk over a function body (not into nested defs, lambdas or classes): every node with its
    parent and grandparent, and the uses of each name."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self.nodes: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = []
        self.names: dict[str, list[tuple[cst.Name, cst.CSTNode | None, cst.CSTNode | None]]] = {}
        stack: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None]] = [(root, None, None)]
        nodes, names = self.nodes, self.names
        while stack:
            item = stack.pop()
            node, parent, _ = item
            nodes.append(item)
            if type(node) is cst.Name:
                names.setdefault(node.value, []).append(item)
                continue
            if node is not root and type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                continue
            for name in _fields(type(node)):
                value = getattr(node, name)
                value_type = type(value)
                if value_type in NODE_TYPES:
                    stack.append((value, node, parent))
                elif value_type is list or value_type is tuple:
                    for child in reversed(value):
                        if type(child) in NODE_TYPES:
                            stack.append((child, node, parent))


_INDEX: dict[int, BodyIndex] = {}


def body_index(root: cst.CSTNode) -> BodyIndex:
    cached = _INDEX.get(id(root))
    if cached is not None and cached.root is root:
        return cached
    if len(_INDEX) > 512:
        _INDEX.clear()
    result = _INDEX[id(root)] = BodyIndex(root)
    return result


def walk(node: cst.CSTNode, ancestors: tuple[cst.CSTNode, ...] = ()) -> Iterator[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
    """Every node under `node` with (parent, grandparent) as its known ancestors, not descending into
    nested defs, lambdas or classes."""
    for sub, parent, grand in body_index(node).nodes:
        yield sub, tuple(a for a in (grand, parent) if a is not None)


def name_uses(function: cst.FunctionDef, name: str) -> Iterator[tuple[cst.Name, tuple[cst.CSTNode, ...]]]:
    """Loads and stores of the local `name` in `function`'s body (not its parameters' declarations)."""
    for node, parent, grand in body_index(function.body).names.get(name, ()):
        if type(parent) is cst.Attribute and parent.attr is node:
            continue
        if type(parent) is cst.Arg and parent.keyword is node:
            continue
        yield node, tuple(a for a in (grand, parent) if a is not None)


def is_none(expr: cst.BaseExpression | None) -> bool:
    return type(expr) is cst.Name and expr.value == "None"


def refined_names(function: cst.FunctionDef) -> set[str]:
    """Names (and `self.attr` spelled 'self.attr') tested with `is None` / `is not None` / `isinstance`
    or as a bare truth value anywhere in `function`: TorchScript refines their type there."""
    out: set[str] = set()
    for node, _ in walk(function.body, (function,)):
        if type(node) is cst.Comparison and any(type(c.operator) in (cst.Is, cst.IsNot) for c in node.comparisons):
            for operand in [node.left, *(c.comparator for c in node.comparisons)]:
                out.add(dotted(operand))
        elif type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "isinstance" and node.args:
            out.add(dotted(node.args[0].value))
        elif type(node) in (cst.If, cst.While, cst.IfExp):
            out.add(dotted(node.test))
        elif type(node) is cst.Assert:
            out.add(dotted(node.test))
        elif type(node) is cst.BooleanOperation:
            out.add(dotted(node.left))
            out.add(dotted(node.right))
        elif type(node) is cst.UnaryOperation and type(node.operator) is cst.Not:
            out.add(dotted(node.expression))
    out.discard("")
    return out


def dotted(expr: cst.BaseExpression) -> str:
    if type(expr) is cst.Name:
        return expr.value
    if type(expr) is cst.Attribute:
        inner = dotted(expr.value)
        return f"{inner}.{expr.attr.value}" if inner else ""
    return ""


# Arguments that TorchScript only accepts as Python ints (tensor methods and torch functions).
_INT_METHOD_ARGS = {"view", "reshape", "expand", "repeat", "permute", "unsqueeze", "squeeze", "flatten",
                    "transpose", "size", "narrow", "chunk", "topk", "kthvalue", "roll", "movedim", "new_zeros",
                    "new_ones", "new_empty", "unflatten", "tile", "select"}
_INT_TORCH_FUNCS = {"zeros", "ones", "empty", "randn", "rand", "randint", "full", "eye"}
_INT_KEYWORDS = {"dim", "k", "num_classes", "groups", "chunks", "dims", "start_dim", "end_dim", "repeats"}
_FLOAT_KEYWORDS = {"eps", "p", "scale_factor", "negative_slope", "momentum", "alpha", "beta", "threshold"}
_STR_METHODS = {"startswith", "endswith", "lower", "upper", "strip", "format", "isdigit", "join", "casefold"}


def scalar_use(name: cst.Name, above: tuple[cst.CSTNode, ...], facts: FunctionFacts,
               aliases: dict[str, str]) -> tuple[str, str] | None:
    """When this use of `name` only makes sense for a Python scalar: (type, what the use is)."""
    from compilelint.analysis.names import qualify

    if not above:
        return None
    parent = above[-1]
    grand = above[-2] if len(above) > 1 else None
    if type(parent) is cst.Slice and name in (parent.lower, parent.upper, parent.step):
        return "int", "a slice bound"
    if type(parent) is cst.Comparison:
        operands = [parent.left, *(c.comparator for c in parent.comparisons)]
        others = [o for o in operands if o is not name]
        if any(literal_scalar_type(o) == "str" for o in others):
            return "str", "compared with a string"
        for c in parent.comparisons:
            if type(c.operator) in (cst.In, cst.NotIn) and parent.left is name and \
                    type(c.comparator) in (cst.Tuple, cst.List, cst.Set) and c.comparator.elements and \
                    all(literal_scalar_type(e.value) == "str" for e in c.comparator.elements):
                return "str", "tested for membership in strings"
    if type(parent) is cst.Attribute and parent.value is name and parent.attr.value in _STR_METHODS and \
            type(grand) is cst.Call:
        return "str", f"`.{parent.attr.value}()` called on it"
    if type(parent) is cst.Arg and parent.value is name and type(grand) is cst.Call:
        call = grand
        func = call.func
        keyword = parent.keyword.value if parent.keyword is not None else None
        if type(func) is cst.Name and func.value == "range":
            return "int", "`range()` argument"
        qualified = qualify(func, aliases) or ""
        is_torch = qualified.startswith("torch.")
        # A local's kind is not known yet when a signature is checked; these method names are tensor API
        # (lists, dicts and str have none of them), so an owner of unknown kind counts as a tensor here.
        is_tensor_method = type(func) is cst.Attribute and (
            facts.kind(func.value) is Kind.TENSOR
            or (facts.kind(func.value) is Kind.UNKNOWN and func.attr.value in _INT_METHOD_ARGS
                and not _is_module_ref(func.value)))
        if is_torch or is_tensor_method:
            if keyword in _INT_KEYWORDS:
                return "int", f"`{keyword}=` argument"
            if keyword in _FLOAT_KEYWORDS:
                return "float", f"`{keyword}=` argument"
            if keyword is None:
                if is_tensor_method and func.attr.value in _INT_METHOD_ARGS:
                    return "int", f"`.{func.attr.value}()` size/dim argument"
                if is_torch and qualified.rsplit(".", 1)[-1] in _INT_TORCH_FUNCS and call.args and \
                        call.args[0] is parent:
                    return "int", f"`{qualified}()` size argument"
    return None


def _is_module_ref(expr: cst.BaseExpression) -> bool:
    """`np.`/`math.`-style module prefixes and `self`: owners that are certainly not tensors."""
    return type(expr) is cst.Name and expr.value in ("np", "numpy", "math", "self", "torch", "F", "nn")


def value_use(name: cst.CSTNode, above: tuple[cst.CSTNode, ...]) -> str | None:
    """How this use of a name needs its concrete type (attribute, arithmetic, indexing, call, iteration),
    or None when it is only tested, passed along or rebound."""
    if not above:
        return None
    parent = above[-1]
    if type(parent) is cst.Attribute and parent.value is name:
        return f"`.{parent.attr.value}`"
    if type(parent) is cst.BinaryOperation:
        return "arithmetic"
    if type(parent) is cst.AugAssign and parent.value is name:
        return "arithmetic"
    if type(parent) is cst.Subscript and parent.value is name:
        return "indexing"
    if type(parent) is cst.Call and parent.func is name:
        return "a call"
    if type(parent) in (cst.For, cst.CompFor) and parent.iter is name:
        return "iteration"
    if type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Minus:
        return "arithmetic"
    return None


def is_rebound(function: cst.FunctionDef, name: str) -> bool:
    """Whether `name` is assigned (or a loop target) somewhere in `function`'s body."""
    for node, parent, _ in body_index(function.body).names.get(name, ()):
        if type(parent) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.WithItem) \
                and getattr(parent, "target", None) is node:
            return True
        if type(parent) is cst.AsName or type(parent) is cst.Element and type(_) in (cst.Tuple, cst.List):
            return True
    return False


def has_overloads(class_node: cst.ClassDef | None, method: str) -> bool:
    """Whether the class declares `method` more than once (typing.overload / torch's _overload_method):
    TorchScript then compiles the annotated overloads, not the implementation's signature."""
    if class_node is None:
        return False
    count = sum(1 for s in class_node.body.body if type(s) is cst.FunctionDef and s.name.value == method)
    return count > 1


def never_compiled_init(function: cst.FunctionDef, class_node: cst.ClassDef | None, aliases: dict[str, str]) -> bool:
    """`__init__` of a class that is not a `@torch.jit.script` class: TorchScript never compiles it (a module's
    `__init__` runs in Python before scripting), so signature rules can skip it without waiting for scope."""
    if function.name.value != "__init__" or class_node is None:
        return False
    from compilelint.analysis.names import qualify

    for d in class_node.decorators:
        target = d.decorator.func if type(d.decorator) is cst.Call else d.decorator
        if (qualify(target, aliases) or "").startswith("torch.jit.script"):
            return False
    return True


# Attributes only a tensor has among the values that default to None in model code (a generator, a process group,
# a config or a callable have none of them): evidence enough for an `Optional[torch.Tensor]` annotation.
_TENSOR_ONLY_ATTRS = frozenset({
    "shape", "dtype", "ndim", "dim", "view", "reshape", "permute", "unsqueeze", "squeeze", "flatten",
    "masked_fill", "masked_fill_", "bool", "long", "numel", "expand", "expand_as", "type_as", "contiguous",
    "transpose", "detach", "sum", "mean", "any", "all", "softmax",
})


def tensor_only_use(name: cst.Name, above: tuple[cst.CSTNode, ...]) -> bool:
    """Whether this use of `name` reads an attribute only a tensor has (`mask.shape`, `mask.bool()`)."""
    parent = above[-1] if above else None
    return type(parent) is cst.Attribute and parent.value is name and parent.attr.value in _TENSOR_ONLY_ATTRS
