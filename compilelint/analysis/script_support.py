"""What `torch.jit.script` accepts, as facts shared by the TorchScript (TS1xx) rules.

Every table here was checked on torch 2.13 (CPU) and is checked again by
tests/test_torchscript_tables.py, which scripts one small module per entry: a table entry that
real torch does not bear out fails that test. `torch.cuda` entries were also checked on a CUDA
build (2.11+cu130, benchmarks/ts_cuda_lookups.py): lookups that script there are left out.
"""

from __future__ import annotations

import libcst as cst

from compilelint.analysis.names import qualify

# `math` functions TorchScript has no builtin for (torch.jit._builtins has no entry): scripting raises
# "Python builtin <built-in function X> is currently not supported in Torchscript".
MATH_UNSUPPORTED = frozenset({"cbrt", "comb", "dist", "exp2", "fsum", "hypot", "isclose", "isqrt", "lcm", "log2",
                              "nextafter", "perm", "prod", "trunc", "ulp"})

# Python builtins TorchScript rejects, with the fix each message names.
BUILTIN_UNSUPPORTED: dict[str, str] = {
    "vars": "read the attributes you need by name",
    "dir": "read the attributes you need by name",
    "setattr": "assign the attribute directly",
    "delattr": "keep the attribute and reset its value instead",
    "id": "compare with `is`",
    "open": "do file I/O outside the compiled code",
    "iter": "loop with `for` over the container",
    "next": "index it (`xs[0]`) or loop with `for`",
    "callable": "decide outside the compiled code",
    "repr": "use `str(...)`",
    "ascii": "use `str(...)`",
    "format": "use `str(...)` or a plain f-string",
    "issubclass": "use `isinstance` on the value",
    "globals": "pass the values in as arguments",
    "locals": "use the local names directly",
    "eval": "write the expression out",
    "exec": "write the statements out",
    "input": "take the value as an argument",
    "breakpoint": "debug the eager module instead",
    "map": "use a list comprehension",
    "filter": "use a loop",
    "reversed": "index backwards with `range`",
    "bytes": "use a str or a tensor of uint8",
    "memoryview": "use a tensor",
    "object": "use `None` or a typed value as the sentinel",
}

# Second arguments of isinstance() that TorchScript cannot resolve as a type ("Unknown type name").
ISINSTANCE_UNSUPPORTED = frozenset({
    "dict", "set", "frozenset", "bytes", "type", "object",
    "typing.Callable", "typing.Mapping", "typing.Sequence", "typing.Iterable", "typing.MutableMapping",
    "collections.abc.Callable", "collections.abc.Mapping", "collections.abc.Sequence", "collections.abc.Iterable",
    "collections.abc.MutableMapping",
    "torch.Size",
})
# Not listed: `torch.nn.Module`/`ModuleList`/`Sequential`. They fail in a fresh process ("Unknown type name
# 'torch.nn.ModuleList'") but script once a module holding one has been scripted: not a stable claim.
# Bare generics without element types: "Attempted to use List without a contained type".
ISINSTANCE_BARE_GENERICS = frozenset({"typing.List", "typing.Dict", "typing.Tuple"})

# Context managers `torch.jit.script` accepts in a `with` statement; any other fails.
SUPPORTED_CONTEXT_MANAGERS = frozenset({
    "torch.no_grad", "torch.autocast", "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.cpu.amp.autocast",
    "torch.autograd.profiler.record_function", "torch.profiler.record_function",
})

# torch.cuda lookups that fail to script on a CPU build AND on a CUDA build.
CUDA_UNSUPPORTED = frozenset({
    "is_available", "is_initialized", "empty_cache", "memory_allocated", "max_memory_allocated",
    "get_device_name", "get_device_capability", "is_bf16_supported", "current_stream",
})


def module_constants(module: cst.Module, aliases: dict[str, str]) -> dict[str, str]:
    """Module-level names bound once to a plain value: name -> what it holds ("int", "tuple", ...).

    TorchScript cannot read such globals from compiled code ("python value of type 'int' cannot be
    used as a value"; `None` globals are "undefined value"). Functions, classes, imported modules and
    anything else that is not clearly a value are left out, and so is a name bound more than once.
    """
    seen: dict[str, int] = {}
    values: dict[str, str] = {}

    def note(name: str, what: str | None) -> None:
        seen[name] = seen.get(name, 0) + 1
        if what is not None:
            values[name] = what

    def unpack(target: cst.Tuple | cst.List, value: cst.BaseExpression) -> None:
        """`X0, Y0, GRID = 0.0, -25.6, 128`: each name gets its own element's type (verified on 2.13:
        TorchScript rejects each of them like a plainly bound global); any other unpacking binds names
        to values of unknown type."""
        elements = target.elements
        values = value.elements if type(value) in (cst.Tuple, cst.List) else None
        plain = values is not None and len(values) == len(elements) and not any(
            type(e) is cst.StarredElement for e in (*elements, *values))
        for i, element in enumerate(elements):
            inner = element.value
            if type(inner) in (cst.Tuple, cst.List):
                unpack(inner, values[i].value if plain else cst.Name("_"))
            elif type(inner) is cst.Name:
                note(inner.value, constant_type(values[i].value, aliases) if plain else None)

    def statements(body) -> list:  # noqa: ANN001
        """Module-level statements, those of module-level `if`/`try`/`with` blocks included (`if
        is_torch_available():` around the constants); a name bound in two branches counts twice (left out)."""
        out = []
        for stmt in body:
            out.append(stmt)
            if type(stmt) in (cst.If, cst.Try, cst.With):
                parts = [stmt.body, *(h.body for h in getattr(stmt, "handlers", ()))]
                orelse = stmt.orelse if type(stmt) is not cst.With else None
                while type(orelse) is cst.If:
                    parts.append(orelse.body)
                    orelse = orelse.orelse
                if orelse is not None:
                    parts.append(orelse.body)
                for part in parts:
                    if type(part) is cst.IndentedBlock:
                        out.extend(statements(part.body))
        return out

    for stmt in statements(module.body):
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            note(stmt.name.value, None)
            continue
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign:
                what = constant_type(small.value, aliases)
                for target in small.targets:
                    if type(target.target) is cst.Name:
                        note(target.target.value, what)
                    elif type(target.target) in (cst.Tuple, cst.List):
                        unpack(target.target, small.value)
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                note(small.target.value, constant_type(small.value, aliases))
            elif type(small) is cst.AugAssign and type(small.target) is cst.Name:
                note(small.target.value, None)
            elif type(small) in (cst.Import, cst.ImportFrom):
                names = small.names if type(small.names) is not cst.ImportStar else ()
                for alias in names:
                    local = alias.asname.name if alias.asname is not None else alias.name
                    while type(local) is cst.Attribute:
                        local = local.value
                    if type(local) is cst.Name:
                        note(local.value, None)
    return {name: what for name, what in values.items() if seen.get(name) == 1}


_DTYPE_NAMES = {"float32", "float", "float16", "half", "bfloat16", "float64", "double", "int64", "long", "int32",
                "int", "int16", "int8", "uint8", "bool", "complex64", "complex128"}


def constant_type(value: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """The type of a plain constant value expression, or None if it is not clearly one."""
    if type(value) is cst.Integer:
        return "int"
    if type(value) is cst.Float:
        return "float"
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        return constant_type(value.expression, aliases) if type(value.expression) in (cst.Integer, cst.Float) else None
    if type(value) in (cst.SimpleString, cst.ConcatenatedString):
        return "str"
    if type(value) is cst.Name and value.value in ("True", "False"):
        return "bool"
    if type(value) is cst.Name and value.value == "None":
        return "None"
    if type(value) in (cst.Tuple, cst.List):
        if value.elements and all(type(e) is not cst.StarredElement and constant_type(e.value, aliases)
                                  for e in value.elements):
            return "tuple" if type(value) is cst.Tuple else "list"
        return None
    if type(value) is cst.Dict:
        if value.elements and all(type(e) is cst.DictElement and constant_type(e.key, aliases)
                                  and constant_type(e.value, aliases) for e in value.elements):
            return "dict"
        return None
    if type(value) is cst.Attribute:
        name = qualify(value, aliases) or ""
        if name.startswith("torch.") and name[len("torch."):] in _DTYPE_NAMES:
            return "dtype"
    return None


def is_load(node: cst.Name, parent: cst.CSTNode | None) -> bool:
    """True when `node` reads a variable (not an attribute name, keyword, target or definition)."""
    if parent is None:
        return True
    if type(parent) is cst.Attribute:
        return parent.value is node
    if type(parent) is cst.Arg:
        return parent.value is node
    if type(parent) in (cst.AssignTarget, cst.Param, cst.FunctionDef, cst.ClassDef, cst.NameItem,
                           cst.ImportAlias, cst.AsName, cst.Decorator, cst.Global, cst.Nonlocal):
        return False
    if type(parent) is cst.Assign:
        return all(t.target is not node for t in parent.targets)
    if type(parent) in (cst.AnnAssign, cst.AugAssign):
        return parent.target is not node
    if type(parent) in (cst.For, cst.CompFor):
        return parent.target is not node
    if type(parent) in (cst.Tuple, cst.List, cst.StarredElement, cst.Element):
        return True  # the caller checks whether the display is a target
    if type(parent) is cst.NamedExpr:
        return parent.target is not node
    if type(parent) is cst.ExceptHandler:
        return parent.type is node
    return True


# -- code TorchScript does not compile: branches guarded by torch.jit.is_scripting() -------------------
# TorchScript parses a whole function first (syntax it has no node for fails everywhere: `try`, set
# literals, f-string specs, ...), then emits only the live side of `if torch.jit.is_scripting()`: calls,
# lookups and types in `if not torch.jit.is_scripting():` (or after `if torch.jit.is_scripting(): return`)
# are never compiled. Verified on torch 2.13 (`x.data_ptr()`, numpy, `del self.k`, `print(sep=)`, ...).

def _is_scripting_call(expr: cst.BaseExpression) -> bool:
    if type(expr) is cst.Call and not expr.args:
        func = expr.func
        if type(func) is cst.Attribute and func.attr.value == "is_scripting":
            return True
        if type(func) is cst.Name and func.value == "is_scripting":
            return True
    return False


def _scripting_test(test: cst.BaseExpression) -> bool | None:
    """True for `torch.jit.is_scripting()`, False for `not torch.jit.is_scripting()`, else None."""
    if _is_scripting_call(test):
        return True
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not and _is_scripting_call(test.expression):
        return False
    return None


def _returns(block: cst.BaseSuite) -> bool:
    body = block.body if type(block) is cst.IndentedBlock else [block]
    last = body[-1] if body else None
    if type(last) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
        return any(type(s) in (cst.Return, cst.Raise) for s in last.body)
    return False


def iter_statements(block: cst.BaseSuite):
    """Every statement in a block, nested compound bodies included (not nested functions/classes'
    bodies); statements only, never expressions, so it is cheap."""
    stack = [block]
    while stack:
        node = stack.pop()
        body = node.body if type(node) in (cst.IndentedBlock, cst.SimpleStatementSuite) else None
        if body is None:
            continue
        for stmt in body:
            yield stmt
            if type(stmt) in (cst.FunctionDef, cst.ClassDef) or not isinstance(stmt, cst.BaseCompoundStatement):
                continue
            inner = getattr(stmt, "body", None)
            if isinstance(inner, cst.BaseSuite):
                stack.append(inner)
            for extra in ("orelse", "finalbody"):
                sub = getattr(stmt, extra, None)
                while type(sub) is cst.If:  # elif chain
                    yield sub
                    stack.append(sub.body)
                    sub = sub.orelse
                if sub is not None and hasattr(sub, "body"):
                    stack.append(sub.body)
            for handler in getattr(stmt, "handlers", ()):
                stack.append(handler.body)
            for case in getattr(stmt, "cases", ()):
                stack.append(case.body)


_GUARDED: dict[int, tuple[cst.CSTNode, bool]] = {}


def mentions_is_scripting(fn: cst.FunctionDef) -> bool:
    """Whether some `if` in `fn` tests `torch.jit.is_scripting()` (cached per function node)."""
    hit = _GUARDED.get(id(fn))
    if hit is not None and hit[0] is fn:
        return hit[1]
    found = any(type(stmt) is cst.If and _scripting_test(stmt.test) is not None for stmt in iter_statements(fn.body))
    if len(_GUARDED) > 4096:
        _GUARDED.clear()
    _GUARDED[id(fn)] = (fn, found)
    return found


def dead_when_scripting(ancestors: list[cst.CSTNode], function: cst.FunctionDef | None) -> bool:
    """Whether the node under `ancestors` sits where TorchScript does not compile (see above)."""
    if function is None or not mentions_is_scripting(function):
        return False
    for i, anc in enumerate(ancestors[:-1] if len(ancestors) > 1 else ancestors):
        child = ancestors[i + 1] if i + 1 < len(ancestors) else None
        if type(anc) is cst.If and child is not None and child is not anc.test:
            polarity = _scripting_test(anc.test)
            in_else = child is anc.orelse
            if polarity is False and not in_else:
                return True
            if polarity is True and in_else:
                return True
        body = getattr(anc, "body", None)
        if type(body) is cst.IndentedBlock and child is not None and child in body.body:
            for stmt in body.body:
                if stmt is child:
                    break
                if type(stmt) is cst.If and _scripting_test(stmt.test) is True and _returns(stmt.body):
                    return True
    return False


def in_decorator(ancestors: list[cst.CSTNode], function: cst.FunctionDef | None) -> bool:
    """Whether the last node of `ancestors` (the node itself included) is part of a decorator of `function`
    (Python evaluates those; the analyzer walks them with the function as context)."""
    if function is None or len(ancestors) < 2 or ancestors[0] is not function:
        return False
    return not isinstance(ancestors[1], (cst.BaseCompoundStatement, cst.SimpleStatementLine))
