"""What a function's unannotated parameters hold at run time: what its callers pass, or how it uses them.

TorchScript types an unannotated parameter `Tensor`, and the TorchScript and annotation rules must see it
so. torch.compile, torch.export and torch.jit.trace run the Python code with the values the callers pass: in
`timestep_embedding(t, self.dim)` the helper's `dim` is an int, and `if dim % 2:` is plain Python there. So
for those targets a parameter's kind comes from

1. the calls to the function in the same file (`helper(x, 3)`, `self.method(x.shape[0])`), each argument
   classified in its caller (a literal, a size, a tensor from a torch call or an entry's input, a
   `self.<attr>` that `__init__` set), joined over the calls;
2. else how the function body uses it: an attribute or method only tensors have (`p.shape`, `p.view(...)`),
   a tensor subscript (`p[:, None]`), `p @ q`, the input of a torch function or of a submodule;
3. else nothing is known: `Kind.UNKNOWN`, and no trace, Dynamo or export rule claims it is a tensor.

Entry points (`forward`, functions under a compile decorator) keep the assumption: their inputs are the
model's inputs. Computed once per file from Python's own `ast` (much cheaper than a LibCST walk).
"""

from __future__ import annotations

import ast

from compilelint.analysis.tensors import Kind

# Attributes and methods only a tensor (among the values model code passes around) has.
_TENSOR_ATTRS = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad", "T", "mT", "data", "layout",
    "size", "dim", "view", "reshape", "permute", "transpose", "unsqueeze", "squeeze", "flatten", "unflatten",
    "contiguous", "float", "half", "double", "long", "bool", "to", "type_as", "view_as", "expand", "expand_as",
    "repeat", "repeat_interleave", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor", "numel",
    "detach", "clone", "cpu", "cuda", "item", "tolist", "numpy", "sum", "mean", "std", "var", "amax", "amin",
    "argmax", "argmin", "softmax", "log_softmax", "sigmoid", "tanh", "relu", "exp", "log", "sqrt", "rsqrt",
    "pow", "abs", "clamp", "clamp_", "clip", "masked_fill", "masked_fill_", "matmul", "bmm", "mm", "norm",
    "split", "chunk", "unbind", "narrow", "gather", "scatter", "scatter_", "index_select", "flip", "roll",
    "topk", "sort", "argsort", "nonzero", "any", "all", "cumsum", "prod", "max", "min", "mul", "mul_", "add",
    "add_", "sub", "div", "fill_", "zero_", "copy_", "masked_select", "einsum", "softplus", "square",
    "is_floating_point", "element_size", "stride", "storage_offset", "data_ptr", "is_contiguous", "addmm",
    "baddbmm", "lerp", "floor", "ceil", "round", "sign", "neg", "reciprocal", "logsumexp", "where",
    "unfold", "movedim", "swapaxes", "tile", "triu", "tril", "diagonal", "isnan", "isinf", "isfinite", "eq",
    "ne", "gt", "ge", "lt", "le", "logical_not", "long", "int", "byte", "char", "short",
})
# Calls whose result is a Python number or a size, never a tensor.
_NUMBER_CALLS = frozenset({"int", "float", "round", "abs", "bool", "min", "max", "sum", "divmod", "pow"})
_SIZE_CALLS = frozenset({"len"})
_TORCH_ROOTS = ("torch", "F", "nn", "functional")
_ENTRY_NAMES = frozenset({"forward"})
_ENTRY_DECORATOR_WORDS = ("compile", "script", "jit", "export", "trace")
_NON_TENSOR_TORCH = frozenset({"is_tensor", "is_floating_point", "is_grad_enabled", "numel", "Size", "device",
                               "dtype", "finfo", "iinfo", "get_default_dtype", "is_complex", "no_grad",
                               "autocast", "inference_mode", "split", "chunk", "unbind", "meshgrid"})


def _join(kinds: list[Kind]) -> Kind:
    """One kind for what several callers pass: agreement, or a size where ints and sizes meet; a tensor where
    some calls pass a tensor and the others are unknown; unknown otherwise."""
    known = set(kinds) - {Kind.UNKNOWN}
    if not kinds or not known:
        return Kind.UNKNOWN
    if known <= {Kind.PY, Kind.SIZE}:
        return Kind.UNKNOWN if Kind.UNKNOWN in kinds else (Kind.SIZE if Kind.SIZE in known else Kind.PY)
    if known == {Kind.TENSOR}:
        return Kind.TENSOR
    if len(known) == 1 and Kind.UNKNOWN not in kinds:
        return known.pop()
    return Kind.UNKNOWN


def _is_entry(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if fn.name in _ENTRY_NAMES:
        return True
    for d in fn.decorator_list:
        text = ast.unparse(d.func if isinstance(d, ast.Call) else d)
        if any(w in text for w in _ENTRY_DECORATOR_WORDS):
            return True
    return False


def _open_params(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    """Parameters with neither an annotation nor a default, in call order (self/cls left out)."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out = [a.arg for a, d in zip(positional, defaults) if a.annotation is None and d is None]
    out += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if a.annotation is None and d is None]
    if method and positional and out and out[0] == positional[0].arg:
        out = out[1:]
    return out


class _Function:
    def __init__(self, node: ast.FunctionDef | ast.AsyncFunctionDef, owner: "_Class | None") -> None:
        self.node = node
        self.owner = owner
        self.entry = _is_entry(node)
        args = node.args
        self.positional = [a.arg for a in [*args.posonlyargs, *args.args]]
        if owner is not None and self.positional and not any(
                isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list):
            self.positional = self.positional[1:]
        self.open = _open_params(node, owner is not None)
        self.params = {a.arg: a for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        self.defaults = self._defaults()
        self._locals: dict[str, list[ast.expr]] | None = None
        self.tensor_uses: set[str] | None = None  # names the body uses as tensors (ParamKinds._tensor_uses)

    @property
    def locals(self) -> dict[str, list[ast.expr]]:
        """What each local name is assigned, in the body (worked out on first use)."""
        if self._locals is None:
            self._locals = {}
            for stmt in ast.walk(self.node):
                if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
                    continue
                target = stmt.targets[0]
                if isinstance(target, ast.Name):
                    self._locals.setdefault(target.id, []).append(stmt.value)
                elif isinstance(target, (ast.Tuple, ast.List)):  # `h, w = x.shape[-2:]`: one element each
                    for i, el in enumerate(target.elts):
                        if isinstance(el, ast.Name):
                            self._locals.setdefault(el.id, []).append(_Element(stmt.value, i))
        return self._locals

    def _defaults(self) -> dict[str, ast.expr]:
        args = self.node.args
        positional = [*args.posonlyargs, *args.args]
        out = {a.arg: d for a, d in zip(positional[len(positional) - len(args.defaults):], args.defaults)}
        out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        return out


class _Class:
    def __init__(self, node: ast.ClassDef) -> None:
        self.node = node
        self.methods: dict[str, _Function] = {}
        self._attrs: dict[str, list[ast.expr]] | None = None
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.methods[stmt.name] = _Function(stmt, self)

    @property
    def attrs(self) -> dict[str, list[ast.expr]]:
        """What `__init__` assigns to each `self.<attr>` (worked out on first use)."""
        if self._attrs is None:
            self._attrs = self._init_attrs()
        return self._attrs

    def _init_attrs(self) -> dict[str, list[ast.expr]]:
        attrs: dict[str, list[ast.expr]] = {}
        init = self.methods.get("__init__")
        if init is not None:
            for stmt in ast.walk(init.node):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
                    stmt, ast.AnnAssign) and stmt.value is not None else []
                for t in targets:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                        attrs.setdefault(t.attr, []).append(stmt.value)
                if (isinstance(stmt, ast.Call) and isinstance(stmt.func, ast.Attribute)
                        and stmt.func.attr in ("register_buffer", "register_parameter") and stmt.args
                        and isinstance(stmt.args[0], ast.Constant) and isinstance(stmt.args[0].value, str)):
                    attrs.setdefault(stmt.args[0].value, []).append(ast.Name(id="<tensor>"))
        return attrs


class ParamKinds:
    """{"func" or "Class.method": {parameter: Kind}} for the unannotated, default-less parameters of the
    non-entry functions of one file (an absent function or parameter: keep the TorchScript assumption)."""

    def __init__(self, tree: ast.Module, source: str = "") -> None:
        self.lines = source.splitlines()
        self.functions: dict[str, _Function] = {}
        self.classes: dict[str, _Class] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = _Function(stmt, None)
            elif isinstance(stmt, ast.ClassDef):
                cls = self.classes[stmt.name] = _Class(stmt)
                for name, fn in cls.methods.items():
                    self.functions[f"{stmt.name}.{name}"] = fn
        self.kinds: dict[str, dict[str, Kind]] = {}  # worked out on demand (`of`), callers first
        self._calls_by_callee: dict[str, list[tuple[_Function, ast.Call]]] | None = None
        self._busy: set[str] = set()

    @classmethod
    def from_tree(cls, tree: ast.Module, source: bytes | str) -> "ParamKinds":
        return cls(tree, source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source)

    @classmethod
    def from_source(cls, source: bytes | str) -> "ParamKinds":
        text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
        try:
            return cls(ast.parse(source), text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return cls(ast.Module(body=[], type_ignores=[]))

    def of(self, key: str) -> dict[str, Kind]:
        """{parameter: Kind} for function `key` ("func" or "Class.method"); {} for entries and functions
        without unannotated, default-less parameters."""
        known = self.kinds.get(key)
        if known is not None:
            return known
        fn = self.functions.get(key)
        if fn is None or fn.entry or not fn.open or key.endswith(".__init__") or key in self._busy:
            return {}  # a call cycle: the caller's kinds stay unknown
        if self._calls_by_callee is None:
            self._calls_by_callee = self._calls()
        self._busy.add(key)
        try:
            kinds = {p: self._param_kind(fn, p, self._calls_by_callee.get(key, [])) for p in fn.open}
        finally:
            self._busy.discard(key)
        self.kinds[key] = kinds
        return kinds

    # -- calls --------------------------------------------------------------------------------
    def _calls(self) -> dict[str, list[tuple[_Function, ast.Call]]]:
        out: dict[str, list[tuple[_Function, ast.Call]]] = {}
        # only functions whose text names a function with open parameters can call one: walk just those
        wanted = {key.rpartition(".")[2] for key, fn in self.functions.items() if fn.open and not fn.entry}
        for fn in self.functions.values():
            if self.lines and wanted:
                text = "\n".join(self.lines[fn.node.lineno - 1:fn.node.end_lineno or fn.node.lineno])
                if not any(name + "(" in text for name in wanted):
                    continue
            elif not wanted:
                break
            for node in ast.walk(fn.node):
                if not isinstance(node, ast.Call):
                    continue
                f = node.func
                if isinstance(f, ast.Name) and f.id in self.functions:
                    out.setdefault(f.id, []).append((fn, node))
                elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls")
                      and fn.owner is not None):
                    key = self._method_key(fn.owner, f.attr)
                    if key:
                        out.setdefault(key, []).append((fn, node))
        return out

    def _method_key(self, cls: _Class, name: str) -> str | None:
        if name in cls.methods:
            return f"{cls.node.name}.{name}"
        for base in cls.node.bases:  # a base class of the same file
            if isinstance(base, ast.Name) and base.id in self.classes and name in self.classes[base.id].methods:
                return f"{base.id}.{name}"
        return None

    @staticmethod
    def _argument(fn: _Function, call: ast.Call, param: str) -> ast.expr | None:
        for kw in call.keywords:
            if kw.arg == param:
                return kw.value
        if any(isinstance(a, ast.Starred) for a in call.args) or param not in fn.positional:
            return None
        i = fn.positional.index(param)
        return call.args[i] if i < len(call.args) else None

    def _param_kind(self, fn: _Function, param: str, calls: list[tuple[_Function, ast.Call]]) -> Kind:
        passed = []
        for caller, call in calls:
            arg = self._argument(fn, call, param)
            passed.append(Kind.UNKNOWN if arg is None else self._kind(arg, caller, 0))
        kind = _join(passed)
        if kind is not Kind.UNKNOWN:
            return kind
        return Kind.TENSOR if self._used_as_tensor(fn, param) else Kind.UNKNOWN

    # -- what an argument holds, in its caller ------------------------------------------------
    def _kind(self, expr: ast.expr, where: _Function, depth: int) -> Kind:
        if depth > 4:
            return Kind.UNKNOWN
        if isinstance(expr, _Element):
            if isinstance(expr.value, (ast.Tuple, ast.List)):
                elts = expr.value.elts
                return self._kind(elts[expr.index], where, depth + 1) if expr.index < len(elts) else Kind.UNKNOWN
            whole = self._kind(expr.value, where, depth + 1)
            return {Kind.SHAPE: Kind.SIZE, Kind.TENSORS: Kind.TENSOR}.get(whole, Kind.UNKNOWN)
        if isinstance(expr, ast.Constant):
            if expr.value is None:
                return Kind.NONE
            return Kind.PY if isinstance(expr.value, (int, float, bool, str, complex)) else Kind.UNKNOWN
        if isinstance(expr, ast.UnaryOp):
            return self._kind(expr.operand, where, depth + 1)
        if isinstance(expr, ast.BinOp):
            return _arith(self._kind(expr.left, where, depth + 1), self._kind(expr.right, where, depth + 1))
        if isinstance(expr, (ast.Tuple, ast.List)):
            kinds = {self._kind(e, where, depth + 1) for e in expr.elts}
            return Kind.PY if kinds and kinds <= {Kind.PY, Kind.SIZE, Kind.NONE} else Kind.UNKNOWN
        if isinstance(expr, ast.Name):
            return self._name_kind(expr.id, where, depth)
        if isinstance(expr, ast.Attribute):
            if expr.attr in ("shape",):
                return Kind.SHAPE
            if expr.attr == "ndim":
                return Kind.SIZE
            if isinstance(expr.value, ast.Name) and expr.value.id == "self" and where.owner is not None:
                values = where.owner.attrs.get(expr.attr)
                if values:
                    return _join([self._attr_value_kind(v) for v in values])
            return Kind.UNKNOWN
        if isinstance(expr, ast.Subscript):
            base = expr.value
            if isinstance(base, ast.Attribute) and base.attr == "shape":
                return Kind.SIZE if not isinstance(expr.slice, ast.Slice) else Kind.SHAPE
            if isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr == "size":
                return Kind.SIZE
            inner = self._kind(base, where, depth + 1)
            return Kind.TENSOR if inner is Kind.TENSOR else Kind.UNKNOWN
        if isinstance(expr, ast.Call):
            return self._call_kind(expr, where, depth)
        return Kind.UNKNOWN

    def _name_kind(self, name: str, where: _Function, depth: int) -> Kind:
        if name in where.params:
            arg = where.params[name]
            if arg.annotation is not None:
                text = ast.unparse(arg.annotation)
                if text.endswith("Tensor"):
                    return Kind.TENSOR
                return Kind.PY if text in ("int", "float", "bool", "str") else Kind.UNKNOWN
            if name in where.defaults:
                return self._kind(where.defaults[name], where, depth + 1)
            if where.entry:
                return Kind.TENSOR  # a model input
            owner = f"{where.owner.node.name}.{where.node.name}" if where.owner else where.node.name
            return self.of(owner).get(name, Kind.UNKNOWN)
        values = where.locals.get(name)
        if values and len(values) <= 3:
            return _join([self._kind(v, where, depth + 1) for v in values])
        return Kind.UNKNOWN

    def _call_kind(self, call: ast.Call, where: _Function, depth: int) -> Kind:
        f = call.func
        if isinstance(f, ast.Name):
            if f.id in _SIZE_CALLS:
                return Kind.SIZE
            if f.id in _NUMBER_CALLS:
                kinds = [self._kind(a, where, depth + 1) for a in call.args]
                return Kind.SIZE if Kind.SIZE in kinds else Kind.PY if kinds and all(
                    k in (Kind.PY, Kind.SIZE) for k in kinds) else Kind.UNKNOWN
            return Kind.UNKNOWN
        if not isinstance(f, ast.Attribute):
            return Kind.UNKNOWN
        root = f.value
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in _TORCH_ROOTS:
            return Kind.UNKNOWN if f.attr in _NON_TENSOR_TORCH or f.attr[:1].isupper() else Kind.TENSOR
        if isinstance(root, ast.Name) and root.id == "math":
            return Kind.PY
        if f.attr in ("size",):
            return Kind.SIZE if call.args else Kind.SHAPE
        if f.attr in ("dim", "numel", "ndimension"):
            return Kind.SIZE
        if f.attr in _TENSOR_ATTRS and self._kind(f.value, where, depth + 1) is Kind.TENSOR:
            return Kind.TENSOR
        if (isinstance(f.value, ast.Name) and f.value.id == "self" and where.owner is not None
                and f.attr not in where.owner.methods):
            values = where.owner.attrs.get(f.attr, [])
            if values and all(_constructs_module(v) for v in values):
                return Kind.TENSOR  # a submodule's output
        return Kind.UNKNOWN

    @staticmethod
    def _attr_value_kind(value: ast.expr) -> Kind:
        if isinstance(value, ast.Name) and value.id == "<tensor>":
            return Kind.TENSOR
        if isinstance(value, ast.Constant):
            return Kind.NONE if value.value is None else Kind.PY
        if isinstance(value, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in value.elts):
            return Kind.PY
        if isinstance(value, ast.Call):
            text = ast.unparse(value.func)
            if text.endswith("Parameter") or (text.startswith("torch.") and text.split(".")[-1][:1].islower()
                                               and text.split(".")[-1] not in _NON_TENSOR_TORCH):
                return Kind.TENSOR
            if text in ("int", "float", "bool", "str", "len", "round"):
                return Kind.PY
        return Kind.UNKNOWN

    # -- how the body uses a parameter --------------------------------------------------------
    def _used_as_tensor(self, fn: _Function, param: str) -> bool:
        if fn.tensor_uses is None:
            fn.tensor_uses = self._tensor_uses(fn)
        return param in fn.tensor_uses

    def _tensor_uses(self, fn: _Function) -> set[str]:
        """The parameters the body uses the way only tensors are used (one walk of the body)."""
        names = set(fn.open)
        used: set[str] = set()
        for node in ast.walk(fn.node):
            param = _tensor_use(node, fn, names)
            if param:
                used.add(param)
        return used


def _tensor_use(node: ast.AST, fn: _Function, names: set[str]) -> str | None:
    """The parameter `node` uses as a tensor, if any."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
        return node.value.id if node.attr in _TENSOR_ATTRS else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(parts) > 1 and any(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and p.value in
                                                              (None, Ellipsis)) for p in parts):
            return node.value.id
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        for side in (node.left, node.right):
            if isinstance(side, ast.Name) and side.id in names:
                return side.id
        return None
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
        f = node.func
        root = f
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in _TORCH_ROOTS and f is not root and \
                f.attr not in _NON_TENSOR_TORCH and not f.attr[:1].isupper():
            return node.args[0].id
        if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
                and fn.owner is not None and f.attr not in fn.owner.methods and f.attr in fn.owner.attrs
                and all(_constructs_module(v) for v in fn.owner.attrs[f.attr])):
            return node.args[0].id  # a submodule's input
    return None


class _Element(ast.expr):
    """Element `index` of what `value` unpacks to (a local bound by a tuple assignment)."""

    def __init__(self, value: ast.expr, index: int) -> None:
        super().__init__()
        self.value = value
        self.index = index


def _arith(a: Kind, b: Kind) -> Kind:
    if Kind.TENSOR in (a, b):
        return Kind.TENSOR
    if Kind.UNKNOWN in (a, b) or Kind.NONE in (a, b):
        return Kind.UNKNOWN
    if Kind.SIZE in (a, b) or Kind.SHAPE in (a, b):
        return Kind.SIZE
    return Kind.PY


def _constructs_module(value: ast.expr | None) -> bool:
    """`nn.Linear(...)`, `Block(...)`: a class constructed in __init__, in model code a submodule."""
    if not isinstance(value, ast.Call):
        return False
    f = value.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name[:1].isupper()
