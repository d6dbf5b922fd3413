"""Tensor facts: which expressions are tensors, shapes, sizes, or Python values read out of tensors.

The distinction every compile path cares about is where a Python value came from:
  VALUE  - read out of tensor *data* (`.item()`, `.tolist()`, `int(t)`, `bool(t)`): Dynamo breaks,
           trace freezes it, so other inputs give wrong results;
  SIZE   - read out of tensor *shape* (`x.shape[0]`, `x.size(1)`, `len(x)`, `x.dim()`): trace
           specialises on it, Dynamo guards on it (recompiles), TorchScript is fine;
  PY     - a plain Python value (literal, config attribute): static for every path.
Facts are computed once per function, in statement order, and shared by every rule.
"""

from __future__ import annotations

import enum

import libcst as cst

from compilelint.analysis.nodes import child_nodes

from compilelint.analysis.names import qualify, without_none
from compilelint.analysis.nodes import string_value


class Kind(enum.Enum):
    TENSOR = "tensor"
    TENSORS = "tensors"  # tuple/list of tensors (split, chunk, unbind, module outputs)
    SHAPE = "shape"  # torch.Size or a tuple of sizes
    SIZE = "size"  # a Python int taken from a shape
    VALUE = "value"  # a Python scalar/list/ndarray read out of tensor data
    PY = "py"  # a Python value that does not come from a tensor
    NONE = "none"
    MODULE = "module"
    MODULES = "modules"  # nn.ModuleList / nn.ModuleDict / nn.Sequential
    UNKNOWN = "unknown"


# torch.* functions that do not return a tensor.
_TORCH_NON_TENSOR = {
    "is_tensor": Kind.PY, "is_grad_enabled": Kind.PY, "is_floating_point": Kind.PY,
    "numel": Kind.SIZE, "Size": Kind.SHAPE, "device": Kind.PY, "dtype": Kind.PY, "finfo": Kind.PY,
    "iinfo": Kind.PY, "get_default_dtype": Kind.PY, "is_complex": Kind.PY, "compile": Kind.UNKNOWN,
    "split": Kind.TENSORS, "chunk": Kind.TENSORS, "unbind": Kind.TENSORS, "meshgrid": Kind.TENSORS,
    "broadcast_tensors": Kind.TENSORS, "tensor_split": Kind.TENSORS, "sort": Kind.TENSORS,
    "topk": Kind.TENSORS, "max": Kind.TENSOR, "min": Kind.TENSOR, "unique": Kind.TENSOR,
    "equal": Kind.VALUE, "allclose": Kind.VALUE, "is_nonzero": Kind.VALUE,
    "no_grad": Kind.UNKNOWN, "autocast": Kind.UNKNOWN, "inference_mode": Kind.UNKNOWN,
}
# What the functions of the linted tree's other files return, by qualified name, from their annotations: set in
# each worker before it analyses (compilelint/analysis/returns.py, engine._init_worker).
TREE_RETURNS: dict[str, Kind] = {}
# The annotated fields of the tree's classes, from the same scan: "module.Class#field" -> "tensor", "tensors",
# "map" (a mapping of str to tensors) or "map|" (one in a Union with other types), and the classes with any. A
# value annotated with such a class (`param: ParamItem`) gives its fields their types (`param.data.get(k)`).
TREE_FIELDS: dict[str, str] = {}
TREE_FIELD_CLASSES: frozenset[str] = frozenset()
_TABLE_KINDS = {"tensor": Kind.TENSOR, "tensors": Kind.TENSORS}
_MAPPING_READS = ("get", "pop", "setdefault")  # methods that give one of a mapping's values


def set_tree_types(table: dict[str, str]) -> None:
    """Install analysis/returns.py's table (function returns and class fields) in this process."""
    global TREE_RETURNS, TREE_FIELDS, TREE_FIELD_CLASSES
    TREE_RETURNS = {name: _TABLE_KINDS[kind] for name, kind in table.items()
                    if "#" not in name and kind in _TABLE_KINDS}
    TREE_FIELDS = {name: kind for name, kind in table.items() if "#" in name}
    TREE_FIELD_CLASSES = frozenset(name.partition("#")[0] for name in TREE_FIELDS)


def _field_class(annotation: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """The tree class with annotated fields an annotation names (`ParamItem`, `Optional[ParamItem]`)."""
    inner = without_none(annotation, aliases)
    name = qualify(inner, aliases) if type(inner) in (cst.Name, cst.Attribute) else None
    return name if name in TREE_FIELD_CLASSES else None


def _mapping_annotation(annotation: cst.BaseExpression, aliases: dict[str, str]) -> bool:
    """`Dict[str, Tensor]` (or Mapping, dict; Optional of one): a mapping whose values are tensors."""
    inner = without_none(annotation, aliases)
    if type(inner) is not cst.Subscript:
        return False
    last = (qualify(inner.value, aliases) or "").rsplit(".", 1)[-1]
    members = [e.slice.value for e in inner.slice if type(e.slice) is cst.Index]
    return (last in ("Dict", "dict", "Mapping", "MutableMapping") and len(members) == 2
            and annotation_kind(members[1], aliases) is Kind.TENSOR)


_TORCH_PREFIX_NON_TENSOR = ("torch.jit.", "torch.cuda.", "torch.backends.", "torch.distributed.",
                            "torch.compiler.", "torch._dynamo.", "torch.nn.init.", "torch.autograd.",
                            "torch.utils.", "torch.fx.", "torch.export.", "torch.onnx.")

# Tensor methods and attributes that do not give a tensor back.
_TENSOR_METHOD_KIND = {
    "item": Kind.VALUE, "tolist": Kind.VALUE, "numpy": Kind.VALUE, "__bool__": Kind.VALUE,
    "size": Kind.SHAPE, "dim": Kind.SIZE, "ndimension": Kind.SIZE, "numel": Kind.SIZE,
    "nelement": Kind.SIZE, "element_size": Kind.SIZE, "stride": Kind.SHAPE,
    "split": Kind.TENSORS, "chunk": Kind.TENSORS, "unbind": Kind.TENSORS, "tensor_split": Kind.TENSORS,
    "sort": Kind.TENSORS, "topk": Kind.TENSORS, "data_ptr": Kind.VALUE, "get_device": Kind.PY,
    "is_contiguous": Kind.PY, "is_floating_point": Kind.PY, "type": Kind.UNKNOWN,
    "storage_offset": Kind.SIZE, "equal": Kind.VALUE, "allclose": Kind.VALUE, "is_nonzero": Kind.VALUE, "any": Kind.TENSOR, "all": Kind.TENSOR,
}
_TENSOR_ATTR_KIND = {
    "shape": Kind.SHAPE, "ndim": Kind.SIZE, "dtype": Kind.PY, "device": Kind.PY, "is_cuda": Kind.PY,
    "requires_grad": Kind.PY, "layout": Kind.PY, "is_sparse": Kind.PY,
    "T": Kind.TENSOR, "mT": Kind.TENSOR, "H": Kind.TENSOR, "data": Kind.TENSOR, "grad": Kind.TENSOR,
    "real": Kind.TENSOR, "imag": Kind.TENSOR,
}
# Ops whose result is a boolean tensor (masks).
_BOOL_OPS = ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or", "logical_not",
             "logical_xor", "eq", "ne", "gt", "lt", "ge", "le", "isin", "isclose")
_TENSOR_ANNOTATIONS = {"Tensor", "torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor"}
_PY_ANNOTATIONS = {"int", "float", "bool", "str", "complex", "bytes"}
_MODULE_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Sequential"}


_TENSOR_CLASSES = {"Tensor", "FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "DoubleTensor",
                   "HalfTensor", "ByteTensor"}

# Ops whose output SIZE depends on tensor values.
_DYNAMIC_SHAPE_OPS = {"nonzero", "argwhere", "masked_select", "unique", "unique_consecutive", "nms",
                      "batched_nms", "repeat_interleave", "masked_select", "bincount"}
# Tensor methods / torch functions that keep a data-dependent first dimension data-dependent.
_SHAPE_PRESERVING = {"squeeze", "unsqueeze", "view", "reshape", "flatten", "float", "long", "int", "bool",
                     "half", "double", "to", "type_as", "clone", "detach", "contiguous", "cpu", "cuda",
                     "t", "permute", "transpose", "view_as", "index_select", "gather", "expand", "sort",
                     "argsort", "flip", "round", "floor", "ceil"}
_ELEMENTWISE = {"sigmoid", "exp", "log", "clamp", "abs", "relu", "softmax", "sqrt", "neg", "add", "mul", "sub",
                "div", "where", "clip", "tanh", "minimum", "maximum"}


# Builtins that turn a traced size into a Python number (torch.jit.trace warns at the call). Not max()/min():
# they compare (and freeze which side wins) but give back the winning size itself, still traced (2.13).
_SIZE_CONVERSIONS = frozenset(("int", "float", "round", "bool"))

_EMPTY_MODULE = cst.Module(body=[])


def _source(expr: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(expr).strip()


def _walk_expr_nodes(expr: cst.CSTNode):
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child_nodes(node))


def annotation_kind(annotation: cst.BaseExpression, aliases: dict[str, str]) -> Kind:
    name = qualify(annotation, aliases)
    if name in _TENSOR_ANNOTATIONS:
        return Kind.TENSOR
    if name in _PY_ANNOTATIONS:
        return Kind.PY
    if type(annotation) is cst.Subscript:
        outer = qualify(annotation.value, aliases) or ""
        last = outer.rsplit(".", 1)[-1]
        inner = [e.slice.value for e in annotation.slice if type(e.slice) is cst.Index]
        inner_kinds = [annotation_kind(i, aliases) for i in inner]
        if last == "Optional" and inner_kinds:
            return inner_kinds[0]
        if last in ("List", "list", "Tuple", "tuple", "Sequence") and inner_kinds and all(
            k is Kind.TENSOR for k in inner_kinds
        ):
            return Kind.TENSORS
        return Kind.PY if all(k is Kind.PY for k in inner_kinds) and inner_kinds else Kind.UNKNOWN
    if type(annotation) is cst.BinaryOperation:  # X | None
        kinds = {annotation_kind(annotation.left, aliases), annotation_kind(annotation.right, aliases)}
        kinds.discard(Kind.NONE)
        return kinds.pop() if len(kinds) == 1 else Kind.UNKNOWN
    if type(annotation) is cst.Name and annotation.value == "None":
        return Kind.NONE
    return Kind.UNKNOWN


def literal_kind(expr: cst.BaseExpression) -> Kind | None:
    if type(expr) in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                         cst.FormattedString):
        return Kind.PY
    if type(expr) is cst.Name and expr.value in ("True", "False"):
        return Kind.PY
    if type(expr) is cst.Name and expr.value == "None":
        return Kind.NONE
    if type(expr) is cst.UnaryOperation and type(expr.expression) in (cst.Integer, cst.Float):
        return Kind.PY
    return None


class ClassFacts:
    """What `self.<attr>` holds, from the assignments in `__init__` (and register_buffer calls)."""

    def __init__(self) -> None:
        self.attrs: dict[str, Kind] = {}
        self.literal_types: dict[str, str] = {}  # attr -> "int"/"float"/"bool"/"str"/"None"/"list"/"dict"
        self.methods: set[str] = set()
        self.attr_calls: dict[str, str] = {}  # attr -> qualified name of the call that built it (`torch.nn.LSTM`)
        # Attributes __init__ sets to a container that nothing bounds: `[]`, `list()`, a deque without maxlen (RC511).
        self.unbounded_lists: set[str] = set()
        # Attributes __init__ sets to a TorchScript module: attr -> "script" (torch.jit.script of a module
        # instance, torch.jit.load, torch.jit.freeze) or "trace" (torch.jit.trace of one) (GB445).
        self.jit_modules: dict[str, str] = {}
        # Tensors registered on the module (register_buffer/register_parameter, `= nn.Parameter(...)`):
        # module state the tracer reads through prim::GetAttr, so in-place updates to them are recorded.
        self.registered: set[str] = set()
        # Switched-off flags: attributes `__init__` sets to False or None that nothing else in the file assigns
        # (a method, a subclass). torch.compile, torch.jit.trace and torch.export specialize on a plain attribute's
        # value, so they never take a branch on one (`if self.debug:`); TorchScript compiles both sides.
        self.off_flags: set[str] = set()
        # Off by default: attributes `__init__` sets to False or None, or to one of its parameters that defaults to
        # False or None, whatever else may switch them on later (`enable_tiling()`). Code behind them runs only
        # in a configuration the user asks for.
        self.default_off: set[str] = set()

    def inherit(self, base: "ClassFacts") -> None:
        """Take a base class's attributes and methods; this class's own assignments win."""
        own = set(self.attrs)
        self.registered |= {name for name in getattr(base, "registered", ()) if name not in own}
        for mapping, inherited in ((self.attrs, base.attrs), (self.literal_types, base.literal_types)):
            for key, value in inherited.items():
                mapping.setdefault(key, value)
        for key, value in getattr(base, "attr_calls", {}).items():
            getattr(self, "attr_calls", {}).setdefault(key, value)
        if hasattr(self, "unbounded_lists"):
            self.unbounded_lists |= {a for a in getattr(base, "unbounded_lists", ()) if a not in own}
        if hasattr(self, "jit_modules"):
            for key, value in getattr(base, "jit_modules", {}).items():
                if key not in own:
                    self.jit_modules.setdefault(key, value)
        self.methods |= base.methods
        self.off_flags |= {name for name in getattr(base, "off_flags", ()) if name not in own}
        self.default_off |= {name for name in getattr(base, "default_off", ()) if name not in own}

    @classmethod
    def from_class(cls, node: cst.ClassDef, aliases: dict[str, str]) -> "ClassFacts":
        facts = cls()
        for stmt in node.body.body:
            if type(stmt) is cst.FunctionDef:
                facts.methods.add(stmt.name.value)
                if stmt.name.value == "__init__":
                    facts._scan_init(stmt, aliases)
                    facts.off_flags = _off_flag_candidates(stmt)
                    facts.default_off = facts.off_flags | _off_by_default_params(stmt)
        return facts

    def settle_off_flags(self, module_counts: dict[str, int]) -> None:
        """After `inherit`: keep the flags whose one `= False` / `= None` in an `__init__` is the only
        statement of the whole file that assigns `self.<name>` (`module_counts`: self_attr_assignments of
        the module), so that no method, and no subclass in the file, can switch them on."""
        if "*" in module_counts:  # setattr(self, name, ...) with a computed name: it may set any of them
            self.off_flags = set()
        else:
            self.off_flags = {n for n in self.off_flags if module_counts.get(n, 0) == 1}

    def _scan_init(self, init: cst.FunctionDef, aliases: dict[str, str]) -> None:
        env = FunctionFacts(aliases, ClassFacts())
        for node in _iter_simple_statements(init.body):
            for small in node.body:
                if type(small) in (cst.Assign, cst.AnnAssign) and small.value is not None:
                    targets = [t.target for t in small.targets] if type(small) is cst.Assign else [small.target]
                    kind = self._value_kind(small.value, aliases, env)
                    for target in targets:
                        if _is_self_attr(target):
                            self.attrs[target.attr.value] = kind
                            self.literal_types[target.attr.value] = _literal_type(small.value)
                            if type(small.value) is cst.Call:
                                self.attr_calls[target.attr.value] = qualify(small.value.func, aliases) or ""
                                if self.attr_calls[target.attr.value] == "torch.nn.Parameter":
                                    self.registered.add(target.attr.value)
                            jit = jit_module_kind(small.value, aliases)
                            if jit:
                                self.jit_modules[target.attr.value] = jit
                            else:
                                self.jit_modules.pop(target.attr.value, None)
                            if _unbounded_container(small.value, aliases):
                                self.unbounded_lists.add(target.attr.value)
                            else:
                                self.unbounded_lists.discard(target.attr.value)
                        elif type(target) is cst.Name:
                            env.env[target.value] = kind
                elif type(small) is cst.Expr and type(small.value) is cst.Call:
                    call = small.value
                    func = call.func
                    name = string_value(call.args[0].value) if call.args else None
                    if (type(func) is cst.Attribute and func.attr.value in ("register_buffer", "register_parameter")
                            and name is not None):
                        self.attrs[name] = Kind.TENSOR
                        self.registered.add(name)
                    elif type(func) is cst.Attribute and func.attr.value == "add_module" and name is not None:
                        self.attrs[name] = Kind.MODULE

    @staticmethod
    def _value_kind(value: cst.BaseExpression, aliases: dict[str, str], env: "FunctionFacts") -> Kind:
        lit = literal_kind(value)
        if lit is not None:
            return lit
        if type(value) is cst.Call:
            name = qualify(value.func, aliases) or ""
            if name in _MODULE_CONTAINERS:
                return Kind.MODULES
            if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                return Kind.TENSOR
            if name.startswith("torch.nn.") and name.rsplit(".", 1)[-1][:1].isupper():
                return Kind.MODULE
            if (name.startswith("torch.") and name.rsplit(".", 1)[-1][:1].isupper()
                    and name.rsplit(".", 1)[-1] not in _TENSOR_CLASSES):
                return Kind.MODULE  # torch.ao.nn.quantized.FloatFunctional(), ...
            if name.startswith("torch.") and not name.startswith(_TORCH_PREFIX_NON_TENSOR):
                return _TORCH_NON_TENSOR.get(name[len("torch."):], Kind.TENSOR)
            last = name.rsplit(".", 1)[-1]
            if last[:1].isupper():  # constructing a class: in an nn.Module's __init__, usually a submodule
                return Kind.MODULE
        if type(value) in (cst.List, cst.Tuple, cst.Dict, cst.ListComp, cst.DictComp):
            return Kind.PY
        return env.kind(value)


def jit_module_kind(value: cst.BaseExpression, aliases: dict[str, str]) -> str:
    """"script" for `torch.jit.script(Module(...))`, `torch.jit.load(...)`, `torch.jit.freeze(...)`; "trace" for
    `torch.jit.trace(Module(...), ...)`; "" otherwise (a scripted or traced function is not a module)."""
    if type(value) is not cst.Call:
        return ""
    name = qualify(value.func, aliases) or ""
    if name in ("torch.jit.load", "torch.jit.freeze"):
        return "script"
    first = value.args[0].value if value.args and value.args[0].keyword is None else None
    if type(first) is not cst.Call:
        return ""
    if name == "torch.jit.script":
        return "script"
    if name in ("torch.jit.trace", "torch.jit.trace_module"):
        return "trace"
    return ""


def _unbounded_container(value: cst.BaseExpression, aliases: dict[str, str]) -> bool:
    """`[]` / `[...]`, `list()`, `collections.deque(...)` with no maxlen (its second argument)."""
    if type(value) is cst.List:
        return True
    if type(value) is not cst.Call:
        return False
    name = qualify(value.func, aliases) or ""
    if name == "list":
        return True
    if name == "collections.deque":
        positional = [a for a in value.args if a.keyword is None]
        maxlen = next((a.value for a in value.args if a.keyword is not None and a.keyword.value == "maxlen"),
                      positional[1].value if len(positional) > 1 else None)
        return maxlen is None or (type(maxlen) is cst.Name and maxlen.value == "None")
    return False


def _literal_type(value: cst.BaseExpression) -> str:
    if type(value) is cst.Integer or (type(value) is cst.UnaryOperation and type(value.expression) is cst.Integer):
        return "int"
    if type(value) is cst.Float or (type(value) is cst.UnaryOperation and type(value.expression) is cst.Float):
        return "float"
    if type(value) is cst.Name and value.value in ("True", "False"):
        return "bool"
    if type(value) is cst.Name and value.value == "None":
        return "None"
    if type(value) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
        return "str"
    if type(value) in (cst.List, cst.ListComp):
        return "list"
    if type(value) in (cst.Dict, cst.DictComp):
        return "dict"
    return ""


def _param_type(p: cst.Param) -> str:
    """"int"/"float"/"bool"/"str" for a parameter annotated so (or Optional of it), else its literal default's type."""
    if p.annotation is not None:
        ann = p.annotation.annotation
        if type(ann) is cst.Subscript and type(ann.value) in (cst.Name, cst.Attribute):
            last = ann.value.attr.value if type(ann.value) is cst.Attribute else ann.value.value
            inner = [e.slice.value for e in ann.slice if type(e.slice) is cst.Index]
            ann = inner[0] if last == "Optional" and len(inner) == 1 else ann
        if type(ann) is cst.Name and ann.value in ("int", "float", "bool", "str"):
            return ann.value
        return ""
    if p.default is not None:
        t = _literal_type(p.default)
        return t if t in ("int", "float", "bool", "str") else ""
    return ""


def _is_self_attr(expr: cst.BaseExpression) -> bool:
    return type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self"


def _off_flag_candidates(init: cst.FunctionDef) -> set[str]:
    """`self.x = False` / `self.x = None` statements of `__init__` (settled by ClassFacts.settle_off_flags)."""
    out = set()
    for line in _iter_simple_statements(init.body):
        for small in line.body:
            if (type(small) is cst.Assign and len(small.targets) == 1 and _is_self_attr(small.targets[0].target)
                    and type(small.value) is cst.Name and small.value.value in ("False", "None")):
                out.add(small.targets[0].target.attr.value)
    return out


def _off_by_default_params(init: cst.FunctionDef) -> set[str]:
    """`self.x = x` statements of `__init__` where its parameter `x` defaults to False or None."""
    params = init.params
    off = {p.name.value for p in (*params.params, *params.kwonly_params)
           if p.default is not None and type(p.default) is cst.Name and p.default.value in ("False", "None")}
    out = set()
    for line in _iter_simple_statements(init.body):
        for small in line.body:
            if (type(small) is cst.Assign and len(small.targets) == 1 and _is_self_attr(small.targets[0].target)
                    and type(small.value) is cst.Name and small.value.value in off):
                out.add(small.targets[0].target.attr.value)
    return out


def self_attr_assignments(block: cst.CSTNode) -> dict[str, int]:
    """How many statements assign each `self.<name>` in `block` (=, +=, annotated, tuple targets, `del`,
    `setattr(self, "name", ...)`; "*" for a setattr with a computed name), at any statement depth. Walks
    statements only, not expressions (an attribute is assigned by a statement): cheap enough to run on
    every class with a candidate flag."""
    counts: dict[str, int] = {}

    def count(target: cst.BaseExpression) -> None:
        if _is_self_attr(target):
            counts[target.attr.value] = counts.get(target.attr.value, 0) + 1
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                count(element.value)

    stack: list = [block]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            for small in node.body:
                small_kind = type(small)
                if small_kind is cst.Assign:
                    for target in small.targets:
                        count(target.target)
                elif small_kind is cst.AnnAssign or small_kind is cst.AugAssign or small_kind is cst.Del:
                    count(small.target)
                elif small_kind is cst.Expr and type(small.value) is cst.Call:
                    call = small.value
                    if (type(call.func) is cst.Name and call.func.value == "setattr" and len(call.args) >= 2
                            and type(call.args[0].value) is cst.Name and call.args[0].value.value == "self"):
                        name = call.args[1].value
                        key = string_value(name) or "*"
                        counts[key] = counts.get(key, 0) + 1
            continue
        for attr in ("body", "orelse", "handlers", "finalbody", "cases"):
            child = getattr(node, attr, None)
            if child is None:
                continue
            if isinstance(child, (list, tuple)):
                stack.extend(child)
            else:
                stack.append(child)
    return counts


def _iter_simple_statements(block: cst.BaseSuite):
    """Simple statement lines of a block, including those nested in if/for/with/try bodies."""
    stack = [block]
    while stack:
        node = stack.pop()
        body = getattr(node, "body", None)
        if type(node) is cst.SimpleStatementLine:
            yield node
            continue
        if type(node) is cst.SimpleStatementSuite:
            yield node
            continue
        items = body if isinstance(body, (list, tuple)) else ([body] if body is not None else [])
        for child in reversed(items):
            stack.append(child)
        for extra in ("orelse", "handlers", "finalbody"):
            sub = getattr(node, extra, None)
            if sub is None:
                continue
            for child in (sub if isinstance(sub, (list, tuple)) else [sub]):
                stack.append(child)


# Tensor methods / torch functions whose result has an integer dtype (whatever their input's).
_INT_RESULT = {"argmax", "argmin", "argsort", "count_nonzero", "nonzero", "argwhere", "bincount", "long", "int",
               "short", "searchsorted", "bucketize", "numel", "multinomial", "randint"}


def _integer_tensor(expr: cst.BaseExpression, facts: "FunctionFacts") -> bool:
    """`t.argmax()`, `(s > 0).sum()`, `x.long()`, `t.to(torch.int64)`, `torch.argmax(t)`: an integer
    tensor (an `.item()` of it is a Python int). Unknown dtypes are not integers."""
    if type(expr) is not cst.Call:
        return False
    func = expr.func
    name = func.attr.value if type(func) is cst.Attribute else (qualify(func, facts.aliases) or "").rsplit(".", 1)[-1]
    if name in _INT_RESULT:
        return True
    if name == "to" and expr.args:
        dtype = qualify(expr.args[0].value, facts.aliases) or ""
        return dtype.startswith(("torch.int", "torch.long", "torch.uint", "torch.short"))
    if name in ("sum", "max", "min", "amax", "amin", "abs") and type(func) is cst.Attribute:
        return facts.is_bool_mask(func.value) or _integer_tensor(func.value, facts)
    return False


class FunctionFacts:
    """Kinds of names inside one function, updated statement by statement by the analyzer."""

    def __init__(self, aliases: dict[str, str], class_facts: ClassFacts | None) -> None:
        self.aliases = aliases
        self.class_facts = class_facts
        self.env: dict[str, Kind] = {}
        self.returns_tensor: set[str] = set()  # local functions / methods annotated `-> Tensor`
        # Python type of each parameter of the function, from its annotation or its literal default:
        # "int" / "float" / "bool" / "str" (absent when unknown). Recompile rules read it.
        self.param_types: dict[str, str] = {}
        # Trace facts (see note_assign): names of tensors whose SHAPE depends on data (nonzero,
        # x[mask], unique, nms keep indices), of Python sizes read from them, of bool mask tensors,
        # and of unannotated parameters assumed to be tensors (a guess, not a certainty).
        self.dynamic: set[str] = set()
        self.dynamic_sizes: set[str] = set()
        self.masks: set[str] = set()
        self.assumed: set[str] = set()
        self.params: set[str] = set()
        self.required_params: set[str] = set()  # parameters without a default
        self.size_tags: dict[str, set[str]] = {}  # SIZE names -> size_sources() of their value
        # Conditions stated with `torch._check(cond)` / `torch._check_is_size(n)` so far (source text):
        # torch.export takes them as facts, so a later branch on the same condition does not fail.
        self.checked: set[str] = set()
        # Names holding what TorchScript types `number` (Scalar): `t.item()` and arithmetic on it, until
        # `int()`/`float()` converts it (see is_script_number).
        self.numbers: set[str] = set()
        # Names holding a Python int read from tensor data or a size (see is_integer_valued).
        self.ints: set[str] = set()
        # Names given a lower bound with `torch._check(n >= 0)` / `torch._check_is_size(n)` so far: export may
        # then size a slice with them (see is_lower_bounded).
        self.lower_bounded: set[str] = set()
        # The expression each name was last assigned (see carries_grad, which follows it on demand: walking
        # every assignment eagerly cost 10% of the lint time on timm).
        self.values: dict[str, cst.BaseExpression] = {}
        # Names holding a 0-d tensor from data, mapped to the first node that reads it as a number (an index,
        # a size): Dynamo breaks there and the resumed frame takes the value as an input, so later reads of
        # the same name do not break again (verified on 2.13; they guard on it instead). See first_number_read.
        self.number_reads: dict[str, int] = {}
        # Names holding a NumPy array made from a tensor (is_traced_array), kept as assignments go: an array
        # is often rebound from itself (`a = a / 2`).
        self.arrays: set[str] = set()
        # Names holding an instance of a tree class with annotated fields (its qualified name), and names holding
        # a mapping whose values are tensors ("map"; "map|": one in a Union, picked only by `.get` and string
        # keys): from annotations, here or of another file's class (TREE_FIELDS), kept as assignments go.
        self.instances: dict[str, str] = {}
        self.mappings: dict[str, str] = {}
        # Names holding a tensor only a container's annotation says is one (`data.get(k)`, `param.field`), and
        # Python values read from those alone (`p = t.item()`): Dynamo breaks on `.item()` of any tensor, but
        # whether export can decide a branch on the value depends on where the tensor was made, which the
        # annotation does not say (kornia's augmentation gate, `prob <= 0.5` of such a value, exports on 2.13).
        self.declared: set[str] = set()

    # -- parameters and bindings ------------------------------------------------------------
    def bind_params(self, fn: cst.FunctionDef, *, assume_tensor: bool, runtime: dict[str, Kind] | None = None) -> None:
        """Bind the parameters: annotated ones by their annotation, defaulted ones by their default, the rest
        as TorchScript types them (a Tensor) when `assume_tensor`, unless `runtime` (semantic/params.py) gives
        the kind they hold at run time."""
        params = fn.params
        all_params = [*params.posonly_params, *params.params, *params.kwonly_params]
        for i, p in enumerate(all_params):
            name = p.name.value
            if i == 0 and name in ("self", "cls"):
                continue
            ptype = _param_type(p)
            if ptype:
                self.param_types[name] = ptype
            if p.annotation is not None:
                annotation = p.annotation.annotation
                self.env[name] = annotation_kind(annotation, self.aliases)
                if type(annotation) in (cst.Subscript, cst.BinaryOperation) and _mapping_annotation(annotation, self.aliases):
                    self.mappings[name] = "map"
                elif TREE_FIELD_CLASSES and (held := _field_class(annotation, self.aliases)) is not None:
                    self.instances[name] = held
            elif p.default is not None:
                self.env[name] = literal_kind(p.default) or Kind.UNKNOWN
            else:
                # Unannotated and without default: TorchScript types it Tensor, and in model code
                # it almost always is one.
                held = (runtime or {}).get(name)
                if held is not None and held is not Kind.TENSOR:
                    self.env[name] = held
                else:
                    self.env[name] = Kind.TENSOR if assume_tensor else Kind.UNKNOWN
                    if assume_tensor:
                        self.assumed.add(name)
            self.params.add(name)
            if p.default is None:
                self.required_params.add(name)
        for star in (params.star_arg, params.star_kwarg):
            if type(star) is cst.Param:
                self.env[star.name.value] = Kind.UNKNOWN

    def bind(self, target: cst.BaseExpression, kind: Kind) -> None:
        if type(target) is cst.Name:
            self.env[target.value] = kind
        elif type(target) in (cst.Tuple, cst.List):
            element = {Kind.SHAPE: Kind.SIZE, Kind.TENSORS: Kind.TENSOR, Kind.TENSOR: Kind.TENSOR,
                       Kind.VALUE: Kind.VALUE, Kind.PY: Kind.PY}.get(kind, Kind.UNKNOWN)
            for el in target.elements:
                self.bind(el.value, element)
        elif type(target) is cst.StarredElement:
            self.bind(target.value, Kind.UNKNOWN)

    def bind_iteration(self, target: cst.BaseExpression, iterable: cst.BaseExpression) -> None:
        """`for target in iterable`: the kind of one element."""
        kind = self.kind(iterable)
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name:
            fname = iterable.func.value
            if fname == "range":
                arg_kinds = {self.kind(a.value) for a in iterable.args}
                element = Kind.VALUE if (Kind.VALUE in arg_kinds or Kind.TENSOR in arg_kinds) else (
                    Kind.SIZE if Kind.SIZE in arg_kinds else Kind.PY)
                self.bind(target, element)
                if type(target) is cst.Name:
                    # a loop index: the loop (not a test of the index) is what specialises (TR303)
                    self.size_tags[target.value] = {"index"}
                return
            if fname == "enumerate" and type(target) is cst.Tuple and len(target.elements) == 2 and iterable.args:
                self.bind(target.elements[0].value, Kind.PY)
                self._bind_element(target.elements[1].value, self.kind(iterable.args[0].value))
                return
            if fname == "zip" and type(target) is cst.Tuple and len(target.elements) == len(iterable.args):
                for el, arg in zip(target.elements, iterable.args):
                    self._bind_element(el.value, self.kind(arg.value))
                return
        self._bind_element(target, kind)

    def _bind_element(self, target: cst.BaseExpression, container: Kind) -> None:
        element = {Kind.TENSOR: Kind.TENSOR, Kind.TENSORS: Kind.TENSOR, Kind.SHAPE: Kind.SIZE,
                   Kind.VALUE: Kind.VALUE, Kind.MODULES: Kind.MODULE, Kind.PY: Kind.PY}.get(container, Kind.UNKNOWN)
        self.bind(target, element)

    # -- expressions --------------------------------------------------------------------------
    def kind(self, expr: cst.BaseExpression) -> Kind:
        lit = literal_kind(expr)
        if lit is not None:
            return lit
        if type(expr) is cst.Name:
            return self.env.get(expr.value, Kind.UNKNOWN)
        if type(expr) is cst.Attribute:
            return self._attribute_kind(expr)
        if type(expr) is cst.Call:
            return self._call_kind(expr)
        if type(expr) is cst.Subscript:
            base = self.kind(expr.value)
            if base is Kind.TENSOR:
                return Kind.TENSOR
            if base is Kind.SHAPE:
                is_slice = any(type(e.slice) is cst.Slice for e in expr.slice)
                return Kind.SHAPE if is_slice else Kind.SIZE
            if base is Kind.TENSORS:
                is_slice = any(type(e.slice) is cst.Slice for e in expr.slice)
                return Kind.TENSORS if is_slice else Kind.TENSOR
            if base is Kind.VALUE:
                return Kind.VALUE
            if base is Kind.MODULES:
                return Kind.MODULE
            if self.mappings or self.instances:
                mapping = self.mapping_of(expr.value)
                if mapping == "map" or mapping == "map|" and len(expr.slice) == 1 and type(
                        expr.slice[0].slice) is cst.Index and type(expr.slice[0].slice.value) is cst.SimpleString:
                    return Kind.TENSOR
            return Kind.UNKNOWN
        if type(expr) is cst.BinaryOperation:
            if type(expr.operator) is cst.Modulo and type(expr.left) in (cst.SimpleString, cst.ConcatenatedString,
                                                                         cst.FormattedString):
                return Kind.PY  # `"%d" % n`: text, whatever it formats
            return self._combine(self.kind(expr.left), self.kind(expr.right))
        if type(expr) is cst.UnaryOperation:
            inner = self.kind(expr.expression)
            if type(expr.operator) is cst.Not and inner is Kind.TENSOR:
                return Kind.VALUE  # `not t` calls bool(t)
            return inner
        if type(expr) is cst.Comparison:
            kinds = [self.kind(expr.left)] + [self.kind(c.comparator) for c in expr.comparisons]
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons):
                return Kind.PY if all(k is not Kind.TENSOR for k in kinds) else Kind.UNKNOWN
            combined = kinds[0]
            for k in kinds[1:]:
                combined = self._combine(combined, k)
            return combined
        if type(expr) is cst.BooleanOperation:
            left, right = self.kind(expr.left), self.kind(expr.right)
            if Kind.TENSOR in (left, right) or Kind.VALUE in (left, right):
                return Kind.VALUE
            return self._combine(left, right)
        if type(expr) is cst.NamedExpr:
            return self.kind(expr.value)  # `(n := x.shape[0])` is the size
        if type(expr) is cst.IfExp:
            body, orelse = self.kind(expr.body), self.kind(expr.orelse)
            return body if body is orelse else (body if orelse in (Kind.NONE, Kind.UNKNOWN) else Kind.UNKNOWN)
        if type(expr) in (cst.GeneratorExp, cst.ListComp) and type(expr.elt) is cst.Call \
                and self.kind(expr.elt) is Kind.TENSOR:
            return Kind.TENSORS  # `(torch.cat([x[i], y[j]]) for x, y in pairs)`: one tensor each
        if type(expr) in (cst.Tuple, cst.List):
            kinds = {self.kind(e.value) for e in expr.elements if type(e) is not cst.StarredElement}
            if kinds and kinds <= {Kind.TENSOR, Kind.TENSORS}:
                return Kind.TENSORS
            if kinds and kinds <= {Kind.SIZE, Kind.PY}:
                return Kind.SHAPE if Kind.SIZE in kinds else Kind.PY
            if Kind.VALUE in kinds:
                return Kind.VALUE
            return Kind.UNKNOWN
        return Kind.UNKNOWN

    @staticmethod
    def _combine(a: Kind, b: Kind) -> Kind:
        if Kind.TENSORS in (a, b):
            # `samples += res_samples`: a tuple of tensors concatenated (a tuple and a tensor do not add, so the
            # other side, whatever the kinds say, is a tuple too)
            return Kind.TENSORS
        if Kind.TENSOR in (a, b):
            return Kind.TENSOR
        if Kind.VALUE in (a, b):
            return Kind.VALUE
        if Kind.SIZE in (a, b) or Kind.SHAPE in (a, b):
            return Kind.SIZE if Kind.SHAPE not in (a, b) else Kind.SHAPE
        if a is Kind.PY and b is Kind.PY:
            return Kind.PY
        return Kind.UNKNOWN

    def _attribute_kind(self, expr: cst.Attribute) -> Kind:
        if type(expr.value) is cst.Name and expr.value.value == "self" and self.class_facts is not None:
            return self.class_facts.attrs.get(expr.attr.value, Kind.UNKNOWN)
        base = self.kind(expr.value)
        if base in (Kind.TENSOR, Kind.TENSORS) and expr.attr.value in ("values", "indices"):
            return Kind.TENSOR  # the named tuple of max/min/topk/sort/mode
        if base is Kind.TENSOR:
            return _TENSOR_ATTR_KIND.get(expr.attr.value, Kind.UNKNOWN)
        if self.instances:
            return _TABLE_KINDS.get(self._field_of(expr), Kind.UNKNOWN)
        return Kind.UNKNOWN

    def _container_read(self, expr: cst.BaseExpression) -> bool:
        """`data.get(k)`, `data[k]` of a tensor mapping, or `param.field` of a tensor field."""
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in _MAPPING_READS:
            return self.mapping_of(expr.func.value) is not None
        if type(expr) is cst.Subscript:
            return self.mapping_of(expr.value) is not None
        return bool(self._field_of(expr))

    def _field_of(self, expr: cst.BaseExpression) -> str:
        """The kind of field `param.field` reads, where `param` holds an instance of a tree class with annotated
        fields (TREE_FIELDS: "tensor", "tensors", "map", "map|"); "" otherwise."""
        if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value in self.instances:
            return TREE_FIELDS.get(f"{self.instances[expr.value.value]}#{expr.attr.value}", "")
        return ""

    def mapping_of(self, expr: cst.BaseExpression) -> str | None:
        """"map" where `expr` holds a mapping of str to tensors (a `Dict[str, Tensor]` parameter, a name assigned
        one, a field of a tree class annotated so), "map|" where it is one member of a Union; else None."""
        if type(expr) is cst.Name:
            return self.mappings.get(expr.value)
        field = self._field_of(expr)
        return field if field.startswith("map") else None

    def _call_kind(self, call: cst.Call) -> Kind:
        func = call.func
        args = [self.kind(a.value) for a in call.args]
        if type(func) is cst.Name:
            name = func.value
            if name in ("int", "float", "bool", "complex") and args:
                if args[0] in (Kind.TENSOR, Kind.VALUE):
                    return Kind.VALUE
                return Kind.SIZE if args[0] in (Kind.SIZE, Kind.SHAPE) else Kind.PY
            if name == "len" and args:
                if self.is_library_module_output(call.args[0].value):
                    return Kind.PY  # the length of the tuple or list a block returns
                return Kind.SIZE if args[0] in (Kind.TENSOR, Kind.SHAPE) else Kind.PY
            if name in ("max", "min", "sum", "abs", "round") and args:
                if Kind.TENSOR in args and name in ("abs",):
                    return Kind.TENSOR
                if Kind.VALUE in args:
                    return Kind.VALUE
                if Kind.SIZE in args or Kind.SHAPE in args:
                    return Kind.SIZE
                return Kind.PY if all(a is Kind.PY for a in args) else Kind.UNKNOWN
            if name in ("list", "tuple") and args:
                return {Kind.SHAPE: Kind.SHAPE, Kind.TENSORS: Kind.TENSORS, Kind.VALUE: Kind.VALUE,
                        Kind.TENSOR: Kind.TENSORS}.get(args[0], Kind.UNKNOWN)
            if name in ("isinstance", "hasattr", "callable", "str", "repr", "type", "id"):
                return Kind.PY
            if name in self.returns_tensor:
                return Kind.TENSOR
        qualified = qualify(func, self.aliases) or ""
        if TREE_RETURNS and qualified in TREE_RETURNS:
            return TREE_RETURNS[qualified]  # a function of another file, annotated (analysis/returns.py)
        if qualified.startswith("torch.") and not qualified.startswith(_TORCH_PREFIX_NON_TENSOR):
            rest = qualified[len("torch."):]
            if rest.startswith("nn.functional."):
                return Kind.TENSORS if rest.endswith(("_with_indices",)) else Kind.TENSOR
            if rest.startswith("nn."):
                return Kind.MODULE if rest.rsplit(".", 1)[-1][:1].isupper() else Kind.UNKNOWN
            if "." in rest and not rest.startswith(("linalg.", "fft.", "special.", "ops.")):
                return Kind.UNKNOWN
            last = rest.split(".")[-1]
            if last.startswith(("is_", "are_", "get_", "has_")):  # torch.is_autocast_enabled(), ...: Python values
                return Kind.VALUE if last == "is_nonzero" else Kind.PY
            if last.startswith("_") and last not in _TORCH_NON_TENSOR:
                return Kind.UNKNOWN  # private helpers return anything
            return _TORCH_NON_TENSOR.get(last, Kind.TENSOR)
        if qualified.startswith(("numpy.", "np.")):
            return Kind.VALUE if Kind.TENSOR in args or Kind.VALUE in args else Kind.PY
        if qualified.startswith("math."):
            return Kind.VALUE if Kind.TENSOR in args or Kind.VALUE in args else (
                Kind.SIZE if Kind.SIZE in args else Kind.PY)
        if type(func) is cst.Attribute:
            owner = func.value
            method = func.attr.value
            if method in _MAPPING_READS and (self.mappings or self.instances) and self.mapping_of(owner) \
                    and (len(call.args) < 2 or literal_kind(call.args[1].value) in (None, Kind.NONE)):
                return Kind.TENSOR  # `data.get("batch_prob")` (a literal default other than None: either)
            if type(owner) is cst.Name and owner.value == "self" and self.class_facts is not None:
                attr_kind = self.class_facts.attrs.get(method)
                if attr_kind in (Kind.MODULE, Kind.MODULES):
                    return Kind.TENSOR  # calling a submodule
                if method in self.returns_tensor:
                    return Kind.TENSOR
                return Kind.UNKNOWN
            owner_kind = self.kind(owner)
            if owner_kind is Kind.TENSOR:
                if method == "size" and call.args:
                    return Kind.SIZE
                if method.startswith(("is_", "has_")) and method not in _TENSOR_METHOD_KIND:
                    return Kind.VALUE if method == "is_nonzero" else Kind.PY  # t.is_complex(), ...
                return _TENSOR_METHOD_KIND.get(method, Kind.TENSOR)
            if owner_kind is Kind.MODULE and method in ("forward", "__call__"):
                return Kind.TENSOR
            if owner_kind is Kind.VALUE:
                return Kind.VALUE
            if owner_kind is Kind.SHAPE and method in ("numel",):
                return Kind.SIZE
        else:
            owner_kind = self.kind(func)
            if owner_kind is Kind.MODULE:
                return Kind.TENSOR
        return Kind.UNKNOWN

    # -- trace facts: data-dependent shapes ----------------------------------------------------
    def note_assign(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        """Record data-dependent shapes, sizes and masks for `target = value` (after `bind`)."""
        if (type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List)
                and len(target.elements) == len(value.elements)):
            for t, v in zip(target.elements, value.elements):  # `boxes, scores = boxes[keep], scores[keep]`
                self.note_assign(t.value, v.value)
            return
        names = [target.value] if type(target) is cst.Name else [
            e.value.value for e in getattr(target, "elements", ()) if type(e.value) is cst.Name]
        dyn = self.has_dynamic_shape(value)
        dyn_size = self.reads_dynamic_size(value)
        mask = self.is_bool_mask(value)
        for name in names:
            for bucket in (self.dynamic, self.dynamic_sizes, self.masks, self.assumed, self.numbers, self.ints,
                           self.lower_bounded):
                bucket.discard(name)
            self.size_tags.pop(name, None)
            if self.env.get(name) in (Kind.SIZE, Kind.SHAPE):
                self.size_tags[name] = self.size_sources(value, bound=True) or {"size"}
            if dyn:
                self.dynamic.add(name)
            if dyn_size:
                self.dynamic_sizes.add(name)
            if mask and type(target) is cst.Name:
                self.masks.add(name)
        if type(target) is cst.Name and self.is_script_number(value):
            self.numbers.add(target.value)
        if type(target) is cst.Name and self.is_integer_valued(value):
            self.ints.add(target.value)
        if self.mappings or self.instances or TREE_FIELD_CLASSES:
            declared = type(target) is cst.Name and (self._container_read(value) or (
                bool(self.declared) and self._declared_only(value)))
            for name in names:
                self.mappings.pop(name, None)
                self.instances.pop(name, None)
                self.declared.discard(name)
            if declared:
                self.declared.add(target.value)
            if type(target) is cst.Name:
                mapping = self.mapping_of(value)
                if mapping:
                    self.mappings[target.value] = mapping
                elif type(value) is cst.Name and value.value in self.instances:
                    self.instances[target.value] = self.instances[value.value]
                elif type(value) is cst.Call and TREE_FIELD_CLASSES and (
                        built := qualify(value.func, self.aliases)) in TREE_FIELD_CLASSES:
                    self.instances[target.value] = built  # `param = ParamItem(name, data)`
        traced = self.is_traced_array(value)  # `near, far = np.percentile(d, [5, 95])` unpacks two arrays
        for name in names:
            self.values[name] = value
            self.number_reads.pop(name, None)
            self.arrays.discard(name)
            if traced:
                self.arrays.add(name)

    def is_integer_valued(self, expr: cst.BaseExpression) -> bool:
        """A Python int for sure: an int literal, a size, `int()`/`len()`, `.item()` of an integer tensor
        (`argmax()`, `.long()`, a count of a mask, ...), and `+ - * // %` of those. torch.export (2.13,
        non-strict) takes `min()`/`max()` of data-dependent ints symbolically; of floats it guards."""
        kind_of = type(expr)
        if kind_of is cst.Integer:
            return True
        if kind_of is cst.Name:
            return expr.value in self.ints or self.env.get(expr.value) is Kind.SIZE
        if kind_of is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return self.is_integer_valued(expr.expression)
        if kind_of is cst.BinaryOperation:
            if type(expr.operator) in (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo):
                return self.is_integer_valued(expr.left) and self.is_integer_valued(expr.right)
            return False
        if kind_of is cst.Call:
            func = expr.func
            if type(func) is cst.Name:
                if func.value in ("int", "len"):
                    return True
                if func.value in ("min", "max", "abs") and expr.args:
                    return all(self.is_integer_valued(a.value) for a in expr.args if a.keyword is None)
                return False
            if type(func) is cst.Attribute and func.attr.value == "item" and not expr.args:
                return _integer_tensor(func.value, self)
            return self.kind(expr) is Kind.SIZE
        return self.kind(expr) is Kind.SIZE

    def _scalar_through(self, expr: cst.BaseExpression, seen: frozenset[str], is_scalar) -> bool:  # noqa: ANN001
        """`is_scalar` through a name (its last value) or integer arithmetic with a Python int."""
        if type(expr) is cst.Name:
            value = self.values.get(expr.value)
            return value is not None and expr.value not in seen and is_scalar(value, seen | {expr.value})
        if type(expr.operator) not in (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo):
            return False
        return ((is_scalar(expr.left, seen) and self.is_integer_valued(expr.right))
                or (self.is_integer_valued(expr.left) and is_scalar(expr.right, seen)))

    def is_data_scalar_index(self, expr: cst.BaseExpression, _seen: frozenset[str] = frozenset()) -> bool:
        """A 0-d integer tensor computed from tensor data, usable as an index: `t.argmax()` / `t.argmin()` with
        no dim (they flatten: always 0-d) or `torch.argmax(t)`; `+ - * // %` of one with a Python int,
        `torch.div(i, w, rounding_mode=...)`, `i.clamp(...)`; or a name last bound to one. Indexing with such
        an `i` makes PyTorch read it as a number: export writes at it fail (EX718, 2.13) and torch 2.11's
        export fails on reads too (EX719)."""
        if type(expr) in (cst.Name, cst.BinaryOperation):
            return self._scalar_through(expr, _seen, self.is_data_scalar_index)
        if type(expr) is not cst.Call:
            return False
        func = expr.func
        name = qualify(func, self.aliases) or ""
        positional = [a.value for a in expr.args if a.keyword is None]
        if name in ("torch.argmax", "torch.argmin"):
            return len(expr.args) == 1 and bool(positional) and self.kind(positional[0]) is Kind.TENSOR
        if name == "torch.div":
            return (len(positional) == 2 and self.is_data_scalar_index(positional[0], _seen)
                    and self.is_integer_valued(positional[1]))
        if type(func) is not cst.Attribute:
            return False
        method = func.attr.value
        if method in ("argmax", "argmin"):
            return not expr.args and self.kind(func.value) is Kind.TENSOR
        if method in ("clamp", "clamp_min", "clamp_max", "long"):
            return all(self.is_integer_valued(a) for a in positional) and self.is_data_scalar_index(func.value, _seen)
        return False

    def is_data_scalar_int(self, expr: cst.BaseExpression, _seen: frozenset[str] = frozenset()) -> bool:
        """A 0-d tensor computed from tensor data, for places where PyTorch needs an int (so it is an integer
        tensor wherever the code runs): an index of `is_data_scalar_index`, or a reduction over all elements
        (`mask.sum()`, `torch.count_nonzero(mask)`, `labels.max()`), `+ - * // %` of one with a Python int,
        `clamp` of one, or a name last bound to one. Used as a size (`torch.arange(n)`, `x.new_zeros(n, 4)`)
        it is read as a number: Dynamo breaks there (GB442)."""
        if self.is_data_scalar_index(expr, _seen):
            return True
        if type(expr) in (cst.Name, cst.BinaryOperation):
            return self._scalar_through(expr, _seen, self.is_data_scalar_int)
        if type(expr) is not cst.Call:
            return False
        func = expr.func
        name = qualify(func, self.aliases) or ""
        # The dtype is rarely known; where PyTorch needs an int the code only runs with an integer tensor.
        if name in ("torch.sum", "torch.count_nonzero", "torch.max", "torch.min", "torch.amax", "torch.amin"):
            return (len(expr.args) == 1 and expr.args[0].keyword is None
                    and self.kind(expr.args[0].value) is Kind.TENSOR)
        if type(func) is not cst.Attribute or expr.args and func.attr.value not in ("clamp", "clamp_min", "clamp_max"):
            return False
        method, receiver = func.attr.value, func.value
        if method in ("sum", "count_nonzero", "max", "min", "amax", "amin"):
            return self.kind(receiver) is Kind.TENSOR
        if method in ("clamp", "clamp_min", "clamp_max"):
            positional = [a.value for a in expr.args if a.keyword is None]
            return all(self.is_integer_valued(a) for a in positional) and self.is_data_scalar_int(receiver, _seen)
        return False

    def first_number_read(self, node: cst.CSTNode, exprs: list[cst.BaseExpression]) -> bool:
        """True unless every name among `exprs` (data scalars `node` reads as numbers) was already read as a
        number by an earlier node of this function: after that first read (a graph break) the value is an
        input of the resumed frame. Asking again about the same node gives the same answer."""
        names = {e.value for expr in exprs for e in _walk_expr_nodes(expr) if type(e) is cst.Name
                 and e.value in self.values}
        if not names:
            return True
        first = False
        for name in names:
            owner = self.number_reads.setdefault(name, id(node))
            first = first or owner == id(node)
        return first

    def is_traced_array(self, expr: cst.BaseExpression) -> bool:
        """A NumPy array (or NumPy scalar) made from a tensor, `t.numpy()` / `np.asarray(t)` / `np.array(t)`, or
        computed from one (a `np.*` function or a method of it, an element, arithmetic, a comparison), directly or
        through a name. Dynamo (2.13) traces such arrays as tensors: arithmetic stays in the graph, but reading
        one into Python (float(), .item(), .tolist(), a branch, np.nonzero) breaks it (GB444)."""
        kind_of = type(expr)
        if kind_of is cst.Name:
            return expr.value in self.arrays
        if kind_of is cst.Call:
            func = expr.func
            if type(func) is cst.Attribute and func.attr.value == "numpy" and not expr.args:
                return self.kind(func.value) is Kind.TENSOR
            name = qualify(func, self.aliases) or ""
            if name in ("numpy.asarray", "numpy.array", "numpy.asanyarray", "numpy.ascontiguousarray"):
                return bool(expr.args) and self.kind(expr.args[0].value) is Kind.TENSOR
            if name.startswith("numpy."):
                return any(self.is_traced_array(a.value) for a in expr.args)
            return type(func) is cst.Attribute and not name.startswith(("torch.", "math.")) and \
                self.is_traced_array(func.value)
        if kind_of is cst.Subscript:
            return self.is_traced_array(expr.value)
        if kind_of is cst.BinaryOperation:
            return self.is_traced_array(expr.left) or self.is_traced_array(expr.right)
        if kind_of is cst.UnaryOperation:
            return self.is_traced_array(expr.expression)
        if kind_of is cst.Comparison:
            return self.is_traced_array(expr.left) or any(
                self.is_traced_array(c.comparator) for c in expr.comparisons)
        return False

    def is_script_number(self, expr: cst.BaseExpression) -> bool:
        """True when TorchScript types `expr` as `number` (its Scalar type), not int: `t.item()`, a name bound
        to one, and arithmetic / `min()` / `max()` / `abs()` involving one (`idx // w`, `min(x + 1, w - 1)`).
        Verified on 2.13: a tensor index or `range()` of such a value fails to script; `int(t.item())` is fine."""
        if type(expr) is cst.Name:
            return expr.value in self.numbers
        if type(expr) is cst.Call:
            func = expr.func
            if type(func) is cst.Attribute and func.attr.value == "item" and not expr.args:
                return self.kind(func.value) is Kind.TENSOR
            if type(func) is cst.Name and func.value in ("min", "max", "abs") and expr.args:
                return any(self.is_script_number(a.value) for a in expr.args)
            return False
        if type(expr) is cst.BinaryOperation:
            return self.is_script_number(expr.left) or self.is_script_number(expr.right)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is not cst.Not:
            return self.is_script_number(expr.expression)
        return False

    def list_sort_compares_tensors(self, call: cst.Call) -> bool:
        """A Python list's `items.sort()` comparing tensor values, as sort_compares_tensors for sorted(): a list of
        tensors, or a `key=lambda` returning a tensor or a number read from one (Dynamo: GB0207 on 2.13, GB416's
        examples). Tensor.sort is traced and not meant here."""
        func = call.func
        if not (type(func) is cst.Attribute and func.attr.value == "sort"):
            return False
        container = self.kind(func.value)
        if container in (Kind.TENSOR, Kind.SHAPE, Kind.MODULE, Kind.MODULES):
            return False
        key = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "key"), None)
        if key is None:
            return container is Kind.TENSORS  # an unknown receiver might be an array: only with a tensor key
        element = Kind.TENSOR if container is Kind.TENSORS else Kind.UNKNOWN
        return type(key) is cst.Lambda and self.lambda_kind(key, element) in (Kind.TENSOR, Kind.VALUE)

    def lambda_kind(self, lam: cst.Lambda, param_kind: Kind) -> Kind:
        """The kind of `lam`'s body when its (first) parameter is bound to `param_kind`
        (`key=lambda d: d[4]` over tensors: a tensor)."""
        params = lam.params.params
        if not params:
            return self.kind(lam.body)
        name = params[0].name.value
        saved = self.env.get(name)
        self.env[name] = param_kind
        try:
            return self.kind(lam.body)
        finally:
            if saved is None:
                self.env.pop(name, None)
            else:
                self.env[name] = saved

    def sort_compares_tensors(self, call: cst.Call) -> bool:
        """The builtins `sorted(xs)`, `min(xs)`, `max(xs)` (one iterable) when they compare tensor VALUES: over a
        list of tensors without a key, or with a `key=lambda` that returns a tensor or a number read from one
        (`sorted(dets, key=lambda d: d[4])`, `sorted(range(n), key=lambda i: s[i])`)."""
        func = call.func
        key = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "key"), None)
        if not (type(func) is cst.Name and func.value in ("sorted", "min", "max") and call.args):
            return False
        positional = [a for a in call.args if a.keyword is None]
        if func.value != "sorted" and len(positional) != 1:
            return False  # min(a, b): compared pairwise; kinds decide elsewhere
        if not positional:
            return False
        container = self.kind(positional[0].value)
        element = {Kind.TENSORS: Kind.TENSOR, Kind.TENSOR: Kind.TENSOR}.get(container, Kind.UNKNOWN)
        if key is None:
            return container is Kind.TENSORS
        if type(key) is cst.Lambda:
            return self.lambda_kind(key, element) in (Kind.TENSOR, Kind.VALUE)
        return False

    def note_check(self, call: cst.Call) -> None:
        """Record `torch._check(cond)` (a statement of its own) for `is_checked` and `is_lower_bounded`."""
        name = qualify(call.func, self.aliases) or ""
        if name in ("torch._check", "torch._check_is_size", "torch._constrain_as_size") and call.args:
            arg = call.args[0].value
            self.checked.add(_source(arg))
            if name != "torch._check" and type(arg) is cst.Name:
                self.lower_bounded.add(arg.value)
            elif type(arg) is cst.Comparison:  # n >= 0, n > -1, 0 <= n, 0 <= n < T
                left = arg.left
                for comp in arg.comparisons:
                    op = type(comp.operator)
                    bounded = left if op in (cst.GreaterThan, cst.GreaterThanEqual) else (
                        comp.comparator if op in (cst.LessThan, cst.LessThanEqual) else None)
                    if type(bounded) is cst.Name:
                        self.lower_bounded.add(bounded.value)
                    left = comp.comparator

    def is_lower_bounded(self, expr: cst.BaseExpression) -> bool:
        """True when a name in `expr` was given a lower bound earlier (`torch._check(n >= 0)`)."""
        return bool(self.lower_bounded) and any(
            type(n) is cst.Name and n.value in self.lower_bounded for n in _walk_expr_nodes(expr))

    def is_submodule_tensor(self, expr: cst.BaseExpression) -> bool:
        """`self.<submodule>.<name>` (`self.proj.weight`, `self.bn.running_mean`): a submodule's parameter or
        buffer."""
        attrs = self.class_facts.attrs if self.class_facts is not None else {}
        return (type(expr) is cst.Attribute and type(expr.value) is cst.Attribute and _is_self_attr(expr.value)
                and attrs.get(expr.value.attr.value) is Kind.MODULE)

    def carries_grad(self, expr: cst.BaseExpression, _seen: set[str] | None = None) -> bool:
        """True when `expr` computes with trainable module state: a submodule call (`self.proj(x)`,
        `self.blocks[i](x)`), a Parameter (`self.scale`, `self.proj.weight`), or a name last assigned such a
        value. Buffers and plain attributes do not count (they do not require grad)."""
        attrs = self.class_facts.attrs if self.class_facts is not None else {}
        calls = getattr(self.class_facts, "attr_calls", {}) if self.class_facts is not None else {}
        seen = set() if _seen is None else _seen
        for node in _walk_expr_nodes(expr):
            if type(node) is cst.Name and node.value in self.values and node.value not in seen:
                seen.add(node.value)
                if self.carries_grad(self.values[node.value], seen):
                    return True
            elif type(node) is cst.Attribute and _is_self_attr(node):
                attr = node.attr.value
                if attrs.get(attr) in (Kind.MODULE, Kind.MODULES) or calls.get(attr) == "torch.nn.Parameter":
                    return True
        return False

    def is_checked(self, expr: cst.BaseExpression) -> bool:
        """True when `expr` (a condition) was stated earlier in the function with `torch._check(expr)`."""
        return bool(self.checked) and _source(expr) in self.checked

    def is_bool_mask(self, expr: cst.BaseExpression) -> bool:
        """A boolean tensor: a comparison of tensors, `~m`, `m & n`, `.bool()`, `torch.logical_*`."""
        if type(expr) is cst.Name:
            return expr.value in self.masks
        if type(expr) is cst.Comparison:
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons):
                return False
            return self.kind(expr) is Kind.TENSOR
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.BitInvert:
            return self.is_bool_mask(expr.expression)
        if type(expr) is cst.BinaryOperation and type(expr.operator) in (cst.BitAnd, cst.BitOr, cst.BitXor):
            return self.is_bool_mask(expr.left) or self.is_bool_mask(expr.right)
        if type(expr) is cst.BinaryOperation and type(expr.operator) is cst.Multiply:
            # bool * bool stays bool (`results = results * inliers`, kornia SOLD2; verified on 2.13)
            return self.is_bool_mask(expr.left) and self.is_bool_mask(expr.right)
        if type(expr) is cst.IfExp:
            # `m = (iou <= thr) if n else s > 0`: a mask either way (one branch a mask, the other one too
            # or a value comparison whose operand's kind is not known, e.g. a helper's result)
            body, orelse = self.is_bool_mask(expr.body), self.is_bool_mask(expr.orelse)
            return (body and orelse) or (body and self._is_unknown_comparison(expr.orelse)) \
                or (orelse and self._is_unknown_comparison(expr.body))
        if type(expr) is cst.Call:
            func = expr.func
            name = qualify(func, self.aliases) or ""
            if name.startswith("torch.") and name[len("torch."):] in _BOOL_OPS:
                return True
            if type(func) is cst.Attribute and func.attr.value in _BOOL_OPS + ("bool",) \
                    and self.kind(func.value) is Kind.TENSOR:
                return True
        return False

    def _is_unknown_comparison(self, expr: cst.BaseExpression) -> bool:
        """An ordering/equality comparison (no `is`/`in`) whose kind is not known to be a Python value."""
        if type(expr) is not cst.Comparison:
            return False
        if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons):
            return False
        return self.kind(expr) in (Kind.TENSOR, Kind.UNKNOWN)

    def has_dynamic_shape(self, expr: cst.BaseExpression) -> bool:
        """True when the tensor `expr` has a shape that depends on tensor DATA (nonzero, x[mask], unique,
        masked_select, nms keep indices, and what is computed from them element-wise or by indexing)."""
        if type(expr) is cst.Name:
            return expr.value in self.dynamic
        if type(expr) is cst.Call:
            func = expr.func
            name = qualify(func, self.aliases) or ""
            last = name.rsplit(".", 1)[-1] if name else (func.attr.value if type(func) is cst.Attribute else "")
            if type(func) is cst.Attribute and self.kind(func.value) is Kind.TENSOR:
                method = func.attr.value
                if method in _DYNAMIC_SHAPE_OPS:
                    return True
                if (method in _SHAPE_PRESERVING or method in _ELEMENTWISE) and self.has_dynamic_shape(func.value):
                    return True
                if method in ("index_select", "gather") and any(self.has_dynamic_shape(a.value) for a in expr.args):
                    return True
                return False
            if name.startswith(("torch.", "torchvision.")) and last in _DYNAMIC_SHAPE_OPS:
                return True
            if name.startswith("torch.") and last in ("cat", "stack") and expr.args:
                inner = expr.args[0].value
                if type(inner) in (cst.List, cst.Tuple):
                    return any(self.has_dynamic_shape(e.value) for e in inner.elements)
                return self.is_dynamic_tuple(inner)  # torch.stack(torch.where(mask), -1)
            if name.startswith("torch.") and (last in _SHAPE_PRESERVING or last in _ELEMENTWISE) and expr.args:
                return self.has_dynamic_shape(expr.args[0].value)
            return False
        if type(expr) is cst.BinaryOperation:  # element-wise: `counts.sum() / counts.clamp(min=1)`
            return self.has_dynamic_shape(expr.left) or self.has_dynamic_shape(expr.right)
        if type(expr) is cst.UnaryOperation:
            return self.has_dynamic_shape(expr.expression)
        if type(expr) is cst.Subscript:
            if self.is_dynamic_tuple(expr.value):  # torch.where(mask)[0]: each element is data-dependent
                return True
            if self.kind(expr.value) is not Kind.TENSOR:
                return False
            indices = [e.slice.value for e in expr.slice if type(e.slice) is cst.Index]
            if any(self.is_bool_mask(i) or self.has_dynamic_shape(i) for i in indices):
                return True
            if self.has_dynamic_shape(expr.value):
                # d[:, :4], d[order] keep the data-dependent first dimension; d[0] drops it
                first = expr.slice[0].slice
                return type(first) is cst.Slice or (type(first) is cst.Index
                                                         and type(first.value) is not cst.Integer
                                                         and self.kind(first.value) is Kind.TENSOR)
            return False
        if type(expr) is cst.BinaryOperation:
            return self.has_dynamic_shape(expr.left) or self.has_dynamic_shape(expr.right)
        if type(expr) is cst.UnaryOperation:
            return self.has_dynamic_shape(expr.expression)
        return False

    def is_dynamic_tuple(self, expr: cst.BaseExpression, _depth: int = 0) -> bool:
        """A tuple of tensors whose length is static and whose elements' sizes depend on tensor data: the
        one-argument `torch.where(mask)` and `nonzero(as_tuple=True)` (one index tensor per dimension), or a name
        bound to one. `len()` of it is the rank, not data-dependent; its elements are."""
        if type(expr) is cst.Name and _depth < 4:
            value = self.values.get(expr.value)
            return value is not None and self.is_dynamic_tuple(value, _depth + 1)
        if type(expr) is not cst.Call:
            return False
        func = expr.func
        if (qualify(func, self.aliases) or "") == "torch.where" and len(expr.args) == 1:
            return True
        if type(func) is cst.Attribute and func.attr.value == "nonzero" and self.kind(func.value) is Kind.TENSOR:
            return any(a.keyword is not None and a.keyword.value == "as_tuple" and type(a.value) is cst.Name
                       and a.value.value == "True" for a in expr.args)
        return False

    def reads_dynamic_size(self, expr: cst.BaseExpression) -> bool:
        """True when the Python number `expr` reads the size of a data-dependent-shape tensor
        (`len(keep)`, `keep.shape[0]`, `keep.numel()`, `keep.size(0)`, or a name bound to one)."""
        for node in _walk_expr_nodes(expr):
            if type(node) is cst.Name and node.value in self.dynamic_sizes:
                return True
            if type(node) is cst.Call:
                func = node.func
                if type(func) is cst.Name and func.value == "len" and node.args:
                    if self.has_dynamic_shape(node.args[0].value):
                        return True
                if type(func) is cst.Attribute and func.attr.value in ("size", "numel", "nelement", "__len__"):
                    if self.has_dynamic_shape(func.value):
                        return True
            if type(node) is cst.Attribute and node.attr.value == "shape" and self.has_dynamic_shape(node.value):
                return True
        return False

    def size_sources(self, expr: cst.BaseExpression, bound: bool = False) -> set[str]:
        """Where the sizes that `expr` reads come from: "converted" (a size already turned into a Python number by
        `int()`/`float()`/`round()`/`bool()`/`math.*`, inside `expr`, or `expr` itself when it is
        the value a name is `bound` to: `int(x)` is the conversion a rule asks about, `n` after `n = int(x)` is not), "rank" (`x.dim()`, `x.ndim`: static configuration),
        "len_assumed" (`len(p)` of an unannotated parameter, which may well be a list), "size" (a real tensor
        size: `x.shape`, `x.size()`, `x.numel()`, `len(t)`)."""
        tags: set[str] = set()
        stack: list[cst.CSTNode] = [expr]
        while stack:
            node = stack.pop()
            if (type(node) is cst.Call and node.args and (node is not expr or bound)
                    and ((type(node.func) is cst.Name and node.func.value in _SIZE_CONVERSIONS)
                         or (qualify(node.func, self.aliases) or "").startswith("math."))):
                # `float(w - 1)`: the conversion reads the traced size (and is reported there); what it gives back
                # is a plain Python number the tracer no longer follows
                tags.add("converted")
                continue
            if type(node) is cst.Name and self.env.get(node.value) in (Kind.SIZE, Kind.SHAPE):
                tags |= self.size_tags.get(node.value, {"size"})
            elif type(node) is cst.Attribute and node.attr.value == "ndim" and self.is_tensor(node.value):
                tags.add("rank")
                continue
            elif type(node) is cst.Attribute and node.attr.value == "shape" and self.is_tensor(node.value):
                tags.add("size")
            elif type(node) is cst.Call and type(node.func) is cst.Attribute and self.is_tensor(node.func.value):
                if node.func.attr.value in ("dim", "ndimension"):
                    tags.add("rank")
                    continue
                if node.func.attr.value in ("size", "numel", "nelement", "stride"):
                    tags.add("size")
            elif type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "len":
                arg_kind = self.kind(node.args[0].value) if node.args else Kind.UNKNOWN
                if arg_kind is Kind.SHAPE:
                    tags.add("rank")  # len(x.shape) is the rank
                    continue
                if arg_kind is Kind.TENSOR:
                    tags.add("len_assumed" if self.is_assumed_tensor(node.args[0].value) else "size")
            stack.extend(child_nodes(node))
        return tags

    def is_rank_only(self, expr: cst.BaseExpression) -> bool:
        """True when the only shape facts `expr` reads are ranks (`x.dim()`, `x.ndim`): a static
        configuration check (which model variant) that does not specialise on sizes."""
        return self.size_sources(expr) == {"rank"}

    def reads_tensor_size(self, expr: cst.BaseExpression) -> bool:
        """True when `expr` reads a real tensor size (not only ranks, not only `len()` of a parameter that
        may be a list)."""
        return "size" in self.size_sources(expr)

    def is_assumed_tensor(self, expr: cst.BaseExpression) -> bool:
        """A bare unannotated parameter: assumed a tensor, but it may be a list or dict."""
        return type(expr) is cst.Name and expr.value in self.assumed

    def is_value_dependent_certain(self, expr: cst.BaseExpression) -> bool:
        """`is_value_dependent`, except through a bare unannotated parameter used as a truth value
        (`if flag:`, `not flag and ...`), which is more often a Python flag than a tensor."""
        if self.is_assumed_tensor(expr):
            return False
        if self.declared and self._declared_only(expr):
            return False
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Not:
            return self.is_value_dependent_certain(expr.expression)
        if type(expr) is cst.BooleanOperation:
            return self.is_value_dependent_certain(expr.left) or self.is_value_dependent_certain(expr.right)
        return self.is_value_dependent(expr)

    def _declared_only(self, expr: cst.BaseExpression) -> bool:
        """Every tensor or tensor-read name in `expr` is `declared` (and there is one)."""
        names = {n.value for n in _walk_expr_nodes(expr) if type(n) is cst.Name
                 and self.env.get(n.value) in (Kind.TENSOR, Kind.VALUE)}
        return bool(names) and names <= self.declared

    def tests_tensor_truth(self, expr: cst.BaseExpression) -> bool:
        """Using `expr` as a condition calls `bool()` on a tensor here: one of its operands (through `and`, `or`,
        `not`) is a tensor, not a bare unannotated parameter. A Python value read out of a tensor earlier
        (`positive = bool(m.all())`) was converted where it was read, not at this test."""
        if type(expr) is cst.BooleanOperation:
            return self.tests_tensor_truth(expr.left) or self.tests_tensor_truth(expr.right)
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Not:
            return self.tests_tensor_truth(expr.expression)
        kind = self.kind(expr)
        if kind is Kind.TENSOR:
            return not self.is_assumed_tensor(expr)
        if kind is Kind.VALUE:  # read here (`t.max().item() < tol`), not from a name converted earlier
            return any(type(n) is cst.Call and self.kind(n) is Kind.VALUE for n in _walk_expr_nodes(expr))
        return False

    def reads_only_module_state(self, expr: cst.BaseExpression) -> bool:
        """True when `expr` reads nothing but `self.<attr>` state and constants (e.g. `float(self.scale)`):
        fixed once the model is built, not data that changes per input."""
        stack: list[cst.CSTNode] = [expr]
        saw_self = False
        while stack:
            node = stack.pop()
            if type(node) is cst.Attribute:
                stack.append(node.value)
                continue
            if type(node) is cst.Name:
                if node.value == "self":
                    saw_self = True
                elif node.value not in self.aliases and self.env.get(node.value) is not Kind.PY:
                    return False
                continue
            if type(node) is cst.Call:
                stack.append(node.func)
                stack.extend(a.value for a in node.args)
                continue
            stack.extend(child_nodes(node))
        return saw_self

    def frozen_size(self, expr: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
        """(name, the value it was bound to) for a name in `expr` that holds a size already converted to a Python
        number (`n = int(x.shape[0] / 2)`): for torch.jit.trace a constant, the example's number."""
        for node in _walk_expr_nodes(expr):
            if type(node) is cst.Name and self.env.get(node.value) is Kind.SIZE:
                tags = self.size_tags.get(node.value, set())
                if "converted" in tags and "size" not in tags and node.value in self.values:
                    return node.value, self.values[node.value]
        return None

    def is_library_module_output(self, expr: cst.BaseExpression) -> bool:
        """`out = self.block(x)` where `self.block` is built from a class other than a `torch.nn` layer: what it
        returns is the block's own choice (a tuple, a list of features, a dict), not necessarily a tensor."""
        if type(expr) is cst.Name:
            expr = self.values.get(expr.value, expr)
        if type(expr) is not cst.Call or self.class_facts is None:
            return False
        func = expr.func
        if type(func) is cst.Attribute and func.attr.value in ("forward", "__call__"):
            func = func.value
        if type(func) is cst.Subscript:
            func = func.value
        if not (type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"):
            return False
        attr = func.attr.value
        if self.class_facts.attrs.get(attr) not in (Kind.MODULE, Kind.MODULES):
            return False
        built_by = self.class_facts.attr_calls.get(attr, "")
        return not built_by.startswith("torch.")

    def is_known_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.is_tensor(expr) and not self.is_assumed_tensor(expr)

    # -- conveniences for rules ---------------------------------------------------------------
    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        return self.kind(expr) is Kind.TENSOR

    def is_value_dependent(self, expr: cst.BaseExpression) -> bool:
        """True when using `expr` as a Python bool/number reads tensor data."""
        return self.kind(expr) in (Kind.TENSOR, Kind.VALUE)

    def is_shape_dependent(self, expr: cst.BaseExpression) -> bool:
        return self.kind(expr) in (Kind.SIZE, Kind.SHAPE)


def infer_returns_tensor(fn: cst.FunctionDef, aliases: dict[str, str]) -> bool:
    """An unannotated module-level helper whose every `return` is a tensor built by torch ops
    (`def box_iou(a, b): ... return inter / union`). Parameters count as UNKNOWN here, so only values
    that torch calls produce make a tensor: a string or config helper is never inferred."""
    if fn.returns is not None or fn.decorators or type(fn.body) is not cst.IndentedBlock:
        return False
    facts = FunctionFacts(aliases, None)
    facts.bind_params(fn, assume_tensor=False)
    kinds: list[Kind] = []
    for stmt in fn.body.body:
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign:
                    kind = facts.kind(small.value)
                    for target in small.targets:
                        facts.bind(target.target, kind)
                elif type(small) is cst.Return:
                    kinds.append(facts.kind(small.value) if small.value is not None else Kind.NONE)
        elif type(stmt) is cst.FunctionDef or type(stmt) is cst.SimpleStatementLine:
            continue
        else:
            return False  # branches and loops: not inferred
    return bool(kinds) and all(k is Kind.TENSOR for k in kinds)
